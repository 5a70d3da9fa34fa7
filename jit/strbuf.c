/* strbuf.c: growable strings (see strbuf.h). */
#include "strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sk_buf_init(sk_buf *b) { memset(b, 0, sizeof *b); }

void sk_buf_free(sk_buf *b) {
  free(b->s);
  sk_buf_init(b);
}

void sk_buf_reset(sk_buf *b) {
  b->n = 0;
  b->oom = 0;
  if (b->s) b->s[0] = '\0';
}

static int grow(sk_buf *b, size_t extra) {
  if (b->oom) return 0;
  if (b->n + extra + 1 <= b->cap) return 1;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->n + extra + 1) cap *= 2;
  char *s = realloc(b->s, cap);
  if (!s) {
    b->oom = 1;
    return 0;
  }
  b->s = s;
  b->cap = cap;
  return 1;
}

void sk_buf_add(sk_buf *b, const char *s, size_t n) {
  if (!grow(b, n)) return;
  memcpy(b->s + b->n, s, n);
  b->n += n;
  b->s[b->n] = '\0';
}

void sk_buf_puts(sk_buf *b, const char *s) { sk_buf_add(b, s, strlen(s)); }

void sk_buf_printf(sk_buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0 || !grow(b, (size_t)n)) return;
  va_start(ap, fmt);
  vsnprintf(b->s + b->n, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->n += (size_t)n;
}

char *sk_buf_take(sk_buf *b) {
  if (b->oom) {
    sk_buf_free(b);
    return NULL;
  }
  if (!b->s) grow(b, 0);
  char *s = b->s;
  sk_buf_init(b);
  return s;
}
