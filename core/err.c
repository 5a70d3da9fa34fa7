/* core/err.c: messages by id (the table is core/errmsg.h) */
#include <string.h>

#include "core/err.h"

static const char *const texts[SK_E__COUNT] = {
#define SK_ERRDEF(id, text) text,
#include "core/errmsg.h"
#undef SK_ERRDEF
};

static const char *const names[SK_E__COUNT] = {
#define SK_ERRDEF(id, text) #id,
#include "core/errmsg.h"
#undef SK_ERRDEF
};

static _Thread_local int last = SK_E_NONE;

/* a text of slots and punctuation only ("%s", "%s: %s") passes a message
 * on: the id of the message it passes stays the last */
static int passes_on(const char *t) {
  for (; *t; t++) {
    if (*t == '%') {
      t++;
      while (*t && !strchr("diouxXeEfgGcspn%", *t)) t++;
      if (!*t) break;
    } else if ((*t >= 'a' && *t <= 'z') || (*t >= 'A' && *t <= 'Z')) {
      return 0;
    }
  }
  return 1;
}

const char *sk_err_text(int id) { return id >= 0 && id < SK_E__COUNT ? texts[id] : ""; }

const char *sk_err_name(int id) { return id >= 0 && id < SK_E__COUNT ? names[id] : ""; }

int sk_err_id(const char *name) {
  for (int i = 0; i < SK_E__COUNT; i++)
    if (strcmp(names[i], name) == 0) return i;
  return -1;
}

int sk_err_last(void) { return last; }

void sk_err_clear(void) { last = SK_E_NONE; }

/* The id's text is a literal of the table: the format is never a
 * caller's string. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
int sk_verr(char *err, size_t n, int id, va_list ap) {
  if (id < 0 || id >= SK_E__COUNT) id = SK_E_NONE;
  if (!passes_on(texts[id])) last = id;
  if (err && n) vsnprintf(err, n, texts[id], ap);
  return -1;
}
#pragma GCC diagnostic pop

int sk_err_(char *err, size_t n, int id, ...) {
  va_list ap;
  va_start(ap, id);
  sk_verr(err, n, id, ap);
  va_end(ap);
  return -1;
}
