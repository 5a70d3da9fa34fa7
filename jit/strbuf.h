/* strbuf.h: a growable string used by code generation and key encoding.
 * Allocation failure sets 'oom' and later appends are ignored; callers
 * check it once at the end. */
#ifndef SK_STRBUF_H
#define SK_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

typedef struct sk_buf {
  char *s;
  size_t n, cap;
  int oom;
} sk_buf;

void sk_buf_init(sk_buf *b);
void sk_buf_free(sk_buf *b);
void sk_buf_reset(sk_buf *b);
void sk_buf_add(sk_buf *b, const char *s, size_t n);
void sk_buf_puts(sk_buf *b, const char *s);
void sk_buf_printf(sk_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* detach the string (NUL-terminated, malloc'd); the buffer is reset */
char *sk_buf_take(sk_buf *b);

#endif
