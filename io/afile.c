/* afile.c: files written whole or not at all -- the data go to a
 * temporary file beside the target, which replaces the target by one
 * rename once every byte is out -- and files read only when they are
 * regular files (io.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
