/* lines.c: text files read line by line, plain or gzip-compressed (io.h).
 * A file whose first two bytes are gzip's magic (0x1f 0x8b) is inflated
 * as it is read (zlib, streaming: one input and one output buffer, never
 * the whole file); concatenated gzip members are one stream, as gzip -d
 * reads them. Corrupt compressed data (a bad header, an invalid code, a
 * wrong checksum or length) is an error naming the file and the byte
 * offset in it where inflating failed; a stream that ends before its
 * trailer (a truncated download) is one naming the file's size. Only
 * regular files are read (sk_rfile_open).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "core/err.h"
#include "io/io.h"

enum { IN_CHUNK = 1 << 16, OUT_CHUNK = 1 << 18 };

typedef struct gz {
  z_stream zs;
  unsigned char in[IN_CHUNK];
  int in_eof, ended; /* the file is read to its end; the last member ended */
} gz;

int sk_lines_open(sk_lines *s, const char *path, char *err, size_t errlen) {
  memset(s, 0, sizeof *s);
  s->path = path;
  const char *kind;
  s->f = sk_rfile_open(path, &kind);
  if (!s->f) {
    if (kind) sk_err(err, errlen, SK_E_PATH_NOT_REGULAR, path, kind);
    else sk_err(err, errlen, SK_E_CANNOT_OPEN_PATH, path, strerror(errno));
    return -1;
  }
  struct stat st;
  s->size = fstat(fileno(s->f), &st) == 0 ? (double)st.st_size : 0;
  s->cap = OUT_CHUNK;
  s->buf = malloc(s->cap);
  if (!s->buf) goto nomem;
  int c0 = getc(s->f), c1 = c0 == EOF ? EOF : getc(s->f);
  rewind(s->f);
  if (c0 == 0x1f && c1 == 0x8b) {
    gz *z = calloc(1, sizeof *z);
    if (!z) goto nomem;
    s->z = z;
    if (inflateInit2(&z->zs, 16 + MAX_WBITS) != Z_OK) goto nomem;
    s->gz = 1;
  }
  return 0;
nomem:
  sk_err(err, errlen, SK_E_NOMEM);
  sk_lines_close(s);
  return -1;
}

void sk_lines_close(sk_lines *s) {
  if (s->z) {
    gz *z = s->z;
    if (s->gz) inflateEnd(&z->zs);
    free(z);
  }
  if (s->f) fclose(s->f);
  free(s->buf);
  free(s->line);
  memset(s, 0, sizeof *s);
}

/* more bytes at buf[len..cap): > 0 added, 0 at the end, -1 error */
static int64_t fill(sk_lines *s, char *err, size_t errlen) {
  size_t room = s->cap - s->len;
  if (!s->gz) {
    size_t n = fread(s->buf + s->len, 1, room, s->f);
    if (n == 0 && ferror(s->f)) {
      sk_err(err, errlen, SK_E_CANNOT_READ, s->path, strerror(errno));
      return -1;
    }
    s->raw += (double)n;
    s->len += n;
    return (int64_t)n;
  }
  gz *z = s->z;
  z->zs.next_out = (unsigned char *)s->buf + s->len;
  z->zs.avail_out = (uInt)room;
  while (z->zs.avail_out == room) {
    if (z->ended && z->zs.avail_in == 0) {
      /* another member after the last one's trailer? */
      if (z->in_eof) return 0;
    }
    if (z->zs.avail_in == 0 && !z->in_eof) {
      size_t n = fread(z->in, 1, IN_CHUNK, s->f);
      if (n == 0 && ferror(s->f)) {
        sk_err(err, errlen, SK_E_CANNOT_READ, s->path, strerror(errno));
        return -1;
      }
      if (n == 0) z->in_eof = 1;
      s->raw += (double)n;
      z->zs.next_in = z->in;
      z->zs.avail_in = (uInt)n;
      continue;
    }
    if (z->ended) { /* a further member starts */
      if (inflateReset(&z->zs) != Z_OK) {
        sk_err(err, errlen, SK_E_NOMEM);
        return -1;
      }
      z->ended = 0;
    }
    /* the offset in the file of the next byte inflate reads */
    long long at = (long long)(s->raw - z->zs.avail_in);
    int rc = inflate(&z->zs, Z_NO_FLUSH);
    if (rc == Z_STREAM_END) {
      z->ended = 1;
      continue;
    }
    if (rc == Z_BUF_ERROR || (rc == Z_OK && z->zs.avail_in == 0 && z->in_eof &&
                              z->zs.avail_out == room)) {
      if (z->in_eof && z->zs.avail_in == 0) {
        sk_err(err, errlen, SK_E_GZIP_TRUNCATED, s->path, (long long)s->raw);
        return -1;
      }
      continue;
    }
    if (rc != Z_OK) {
      if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT) {
        at = (long long)(s->raw - z->zs.avail_in);
        sk_err(err, errlen, SK_E_GZIP_CORRUPT, s->path, at,
               z->zs.msg ? z->zs.msg : "invalid data");
      } else {
        sk_err(err, errlen, SK_E_NOMEM);
      }
      return -1;
    }
    (void)at;
  }
  size_t n = room - z->zs.avail_out;
  s->len += n;
  return (int64_t)n;
}

int64_t sk_lines_next(sk_lines *s, char **line, char *err, size_t errlen) {
  for (;;) {
    char *nl = s->pos < s->len ? memchr(s->buf + s->pos, '\n', s->len - s->pos) : NULL;
    size_t n = 0;
    if (nl) n = (size_t)(nl - (s->buf + s->pos)) + 1;
    else if (s->eof) n = s->len - s->pos;
    if (nl || s->eof) {
      if (n == 0) return 0;
      if (n + 1 > s->lcap) {
        size_t c = 2 * (n + 1);
        char *l = realloc(s->line, c);
        if (!l) {
          sk_err(err, errlen, SK_E_NOMEM);
          return -1;
        }
        s->line = l;
        s->lcap = c;
      }
      memcpy(s->line, s->buf + s->pos, n);
      s->line[n] = '\0';
      s->pos += n;
      *line = s->line;
      return (int64_t)n;
    }
    /* no whole line left: keep the partial one at the front, make room */
    if (s->pos > 0) {
      memmove(s->buf, s->buf + s->pos, s->len - s->pos);
      s->len -= s->pos;
      s->pos = 0;
    }
    if (s->len == s->cap) {
      char *b = realloc(s->buf, 2 * s->cap);
      if (!b) {
        sk_err(err, errlen, SK_E_NOMEM);
        return -1;
      }
      s->buf = b;
      s->cap *= 2;
    }
    int64_t got = fill(s, err, errlen);
    if (got < 0) return -1;
    if (got == 0) s->eof = 1;
  }
}
