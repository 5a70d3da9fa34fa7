/* test_errtable.c: core/errmsg.h and sk_err without Lua: every id has a
 * name and a text, names and texts are unique (a text is written once),
 * every text's printf slots are well formed, sk_err formats by id,
 * returns -1, truncates safely and records the thread's last id (a
 * pass-on id such as SK_E_MSG keeps the id it passes on), and the ids of
 * a compile error tell its part (jit's sk_jit_diag).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "core/err.h"
#include "jit/jit.h"

static int passed, failed;

#define CHECK(c) \
  do { \
    if (c) passed++; \
    else { \
      failed++; \
      printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); \
    } \
  } while (0)

/* the slots of a printf format; -1 for a malformed or unknown one */
static int slots(const char *t) {
  int n = 0;
  for (; *t; t++) {
    if (*t != '%') continue;
    t++;
    if (*t == '%') continue;
    while (*t && strchr("-+ #0", *t)) t++;
    if (*t == '*') n++, t++;
    else
      while (*t >= '0' && *t <= '9') t++;
    if (*t == '.') {
      t++;
      if (*t == '*') n++, t++;
      else
        while (*t >= '0' && *t <= '9') t++;
    }
    if (t[0] == 'h' && t[1] == 'h') t += 2;
    else if (t[0] == 'l' && t[1] == 'l') t += 2;
    else if (*t && strchr("hlzjtL", *t)) t++;
    if (!*t || !strchr("diouxXeEfgGcsp", *t)) return -1;
    n++;
  }
  return n;
}

static void test_table(void) {
  CHECK(SK_E__COUNT > 600);
  CHECK(strcmp(sk_err_name(SK_E_NOMEM), "NOMEM") == 0);
  CHECK(strcmp(sk_err_text(SK_E_NOMEM), "out of memory") == 0);
  CHECK(strcmp(sk_err_text(SK_E_MSG), "%s") == 0);
  CHECK(sk_err_id("NOMEM") == SK_E_NOMEM);
  CHECK(sk_err_id("NO_SUCH_ID") == -1);
  CHECK(strcmp(sk_err_text(-1), "") == 0 && strcmp(sk_err_text(SK_E__COUNT), "") == 0);
  int bad_names = 0, dup_names = 0, dup_texts = 0, bad_slots = 0;
  for (int i = 0; i < SK_E__COUNT; i++) {
    const char *nm = sk_err_name(i), *t = sk_err_text(i);
    if (!nm[0] || !t[0]) bad_names++;
    for (const char *p = nm; *p; p++)
      if (!((*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_'))
        bad_names++;
    if (sk_err_id(nm) != i) {
      dup_names++;
      printf("id %s is defined twice\n", nm);
    }
    for (int j = 0; j < i; j++)
      if (strcmp(sk_err_text(j), t) == 0) {
        dup_texts++;
        printf("ids %s and %s have the same text \"%s\"\n", sk_err_name(j), nm, t);
      }
    if (slots(t) < 0) {
      bad_slots++;
      printf("id %s: a malformed slot in \"%s\"\n", nm, t);
    }
  }
  CHECK(bad_names == 0);
  CHECK(dup_names == 0);
  CHECK(dup_texts == 0);
  CHECK(bad_slots == 0);
  CHECK(slots("%s '%s': %d %.*s %5.2f %lld %zu %%") == 8);
}

static void test_raise(void) {
  char err[64];
  sk_err_clear();
  CHECK(sk_err_last() == SK_E_NONE);
  CHECK(sk_err(err, sizeof err, SK_E_NOMEM) == -1);
  CHECK(strcmp(err, "out of memory") == 0);
  CHECK(sk_err_last() == SK_E_NOMEM);
  CHECK(sk_err(err, sizeof err, SK_E_RANK_EXCEEDS_MAXIMUM, 9, 8) == -1);
  CHECK(strcmp(err, "rank 9 exceeds the maximum 8") == 0);
  CHECK(sk_err_last() == SK_E_RANK_EXCEEDS_MAXIMUM);
  /* a message passed on keeps its id */
  char copy[64];
  CHECK(sk_err(copy, sizeof copy, SK_E_MSG, err) == -1);
  CHECK(strcmp(copy, err) == 0);
  CHECK(sk_err_last() == SK_E_RANK_EXCEEDS_MAXIMUM);
  CHECK(sk_err(copy, sizeof copy, SK_E_PREFIX, "speck.x", "y") == -1);
  CHECK(strcmp(copy, "speck.x: y") == 0);
  CHECK(sk_err_last() == SK_E_RANK_EXCEEDS_MAXIMUM);
  /* no buffer: the id is still recorded; a short one is cut, terminated */
  CHECK(sk_err(NULL, 0, SK_E_NOMEM) == -1);
  CHECK(sk_err_last() == SK_E_NOMEM);
  char tiny[4] = "xyz";
  CHECK(sk_err(tiny, sizeof tiny, SK_E_NOMEM) == -1);
  CHECK(strcmp(tiny, "out") == 0);
  /* a runtime id (no check possible) and an unknown one */
  CHECK(sk_err_(err, sizeof err, SK_E_NOMEM) == -1 && strcmp(err, "out of memory") == 0);
  CHECK(sk_err_(err, sizeof err, SK_E__COUNT + 5) == -1 && strcmp(err, "no error") == 0);
}

/* the last id is the thread's own */
static void *other(void *arg) {
  (void)arg;
  sk_err(NULL, 0, SK_E_INTERRUPTED);
  return NULL;
}

static void test_threads(void) {
  sk_err(NULL, 0, SK_E_NOMEM);
  pthread_t t;
  CHECK(pthread_create(&t, NULL, other, NULL) == 0);
  pthread_join(t, NULL);
  CHECK(sk_err_last() == SK_E_NOMEM);
}

static void test_diag(void) {
  char err[128];
  sk_jit_diag(err, sizeof err, "body line 3: error: 'zz' undeclared");
  CHECK(sk_err_last() == SK_E_DIAG_BODY);
  CHECK(strcmp(err, "body line 3: error: 'zz' undeclared") == 0);
  sk_jit_diag(err, sizeof err, "prelude line 1: error: x");
  CHECK(sk_err_last() == SK_E_DIAG_PRELUDE);
  sk_jit_diag(err, sizeof err, "join line 2: error: x");
  CHECK(sk_err_last() == SK_E_DIAG_JOIN);
  sk_err_clear();
  sk_jit_diag(err, sizeof err, "libtcc: something else");
  CHECK(sk_err_last() == SK_E_NONE);
  CHECK(strcmp(err, "libtcc: something else") == 0);
}

int main(void) {
  test_table();
  test_raise();
  test_threads();
  test_diag();
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
