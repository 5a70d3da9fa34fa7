/* afile.c: files written whole or not at all -- the data go to a
 * temporary file beside the target, which replaces the target by one
 * rename once every byte is out, gzip-compressed on the way where asked
 * (a stdio stream whose writes zlib deflates) -- and files read only when
 * they are regular files (io.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "core/err.h"
#include "io/io.h"

FILE *sk_afile_open(sk_afile *a, const char *path, char *err, size_t errlen) {
  a->path = path;
  snprintf(a->tmp, sizeof a->tmp, "%s.tmp%ld", path, (long)getpid());
  FILE *f = fopen(a->tmp, "wb");
  if (!f) {
    int e = errno; /* kept for the caller's own message */
    sk_err(err, errlen, SK_E_CANNOT_WRITE_PATH, a->tmp, strerror(e));
    a->tmp[0] = '\0';
    errno = e;
  }
  return f;
}

/* -- a stream that gzips what is written to it into 'out' ------------------ */
typedef struct gzw {
  FILE *out;
  z_stream zs;
  int bad; /* a write of 'out' failed (errno kept) */
  unsigned char buf[1 << 16];
} gzw;

/* deflate what zs holds with 'flush', writing every full buffer out */
static int gzw_pump(gzw *z, int flush) {
  int r;
  do {
    z->zs.next_out = z->buf;
    z->zs.avail_out = sizeof z->buf;
    r = deflate(&z->zs, flush);
    if (r == Z_STREAM_ERROR) {
      errno = EIO;
      return -1;
    }
    size_t have = sizeof z->buf - z->zs.avail_out;
    if (have && fwrite(z->buf, 1, have, z->out) != have) return -1;
  } while (z->zs.avail_out == 0 || (flush == Z_FINISH && r != Z_STREAM_END));
  return 0;
}

static ssize_t gzw_write(void *c, const char *b, size_t n) {
  gzw *z = c;
  if (z->bad) return -1;
  z->zs.next_in = (unsigned char *)(uintptr_t)b;
  z->zs.avail_in = (uInt)n;
  if (gzw_pump(z, Z_NO_FLUSH) < 0) {
    z->bad = errno ? errno : EIO;
    return -1;
  }
  return (ssize_t)n;
}

static int gzw_close(void *c) {
  gzw *z = c;
  int rc = z->bad ? -1 : gzw_pump(z, Z_FINISH);
  int e = z->bad ? z->bad : errno;
  deflateEnd(&z->zs);
  if ((ferror(z->out) | (fclose(z->out) != 0)) && rc == 0) {
    rc = -1;
    e = errno;
  }
  free(z);
  if (rc) errno = e;
  return rc;
}

static int ends_gz(const char *path) {
  size_t n = strlen(path);
  return n > 3 && strcmp(path + n - 3, ".gz") == 0;
}

FILE *sk_afile_open_z(sk_afile *a, const char *path, char *err, size_t errlen) {
  FILE *f = sk_afile_open(a, path, err, errlen);
  if (!f || !ends_gz(path)) return f;
  gzw *z = calloc(1, sizeof *z);
  /* gzip's wrapper (15 + 16), zlib's default level (gzip's 6) */
  if (!z || deflateInit2(&z->zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
                         Z_DEFAULT_STRATEGY) != Z_OK) {
    free(z);
    fclose(f);
    sk_err(err, errlen, SK_E_CANNOT_WRITE_PATH, a->tmp, "out of memory for compression");
    sk_afile_abandon(a);
    return NULL;
  }
  z->out = f;
  cookie_io_functions_t io = {.write = gzw_write, .close = gzw_close};
  FILE *g = fopencookie(z, "w", io);
  if (!g) {
    int e = errno;
    gzw_close(z);
    sk_err(err, errlen, SK_E_CANNOT_WRITE_PATH, a->tmp, strerror(e));
    sk_afile_abandon(a);
  }
  return g;
}

int sk_afile_commit(sk_afile *a, FILE *f, char *err, size_t errlen) {
  if (ferror(f) | (fclose(f) != 0)) {
    sk_err(err, errlen, SK_E_CANNOT_WRITE_PATH, a->tmp, strerror(errno));
    sk_afile_abandon(a);
    return -1;
  }
  if (rename(a->tmp, a->path) != 0) {
    sk_err(err, errlen, SK_E_CANNOT_WRITE_PATH, a->path, strerror(errno));
    sk_afile_abandon(a);
    return -1;
  }
  a->tmp[0] = '\0';
  return 0;
}

void sk_afile_abandon(sk_afile *a) {
  if (a->tmp[0]) remove(a->tmp);
  a->tmp[0] = '\0';
}

/* what a path that is not a regular file is, for messages */
static const char *kind_of(mode_t m) {
  return S_ISFIFO(m)   ? "a FIFO (named pipe)"
         : S_ISCHR(m)  ? "a character device"
         : S_ISBLK(m)  ? "a block device"
         : S_ISDIR(m)  ? "a directory"
         : S_ISSOCK(m) ? "a socket"
                       : "not a regular file";
}

FILE *sk_rfile_open(const char *path, const char **kind) {
  struct stat st;
  *kind = NULL;
  /* stat first: a device is never opened (opening one can block or act) */
  if (stat(path, &st) != 0) return NULL;
  if (!S_ISREG(st.st_mode)) {
    *kind = kind_of(st.st_mode);
    return NULL;
  }
  /* non-blocking, and checked again once open: the path may have been
   * replaced by a FIFO in between */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return NULL;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    int e = errno;
    if (!S_ISREG(st.st_mode)) *kind = kind_of(st.st_mode);
    close(fd);
    errno = e;
    return NULL;
  }
  int fl = fcntl(fd, F_GETFL);
  if (fl >= 0) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
  FILE *f = fdopen(fd, "rb");
  if (!f) {
    int e = errno;
    close(fd);
    errno = e;
  }
  return f;
}
