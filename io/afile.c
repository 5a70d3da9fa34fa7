/* afile.c: files written whole or not at all -- the data go to a
 * temporary file beside the target, which replaces the target by one
 * rename once every byte is out (io.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/err.h"
#include "io/io.h"

FILE *sk_afile_open(sk_afile *a, const char *path, char *err, size_t errlen) {
  a->path = path;
  snprintf(a->tmp, sizeof a->tmp, "%s.tmp%ld", path, (long)getpid());
  FILE *f = fopen(a->tmp, "wb");
  if (!f) {
    sk_err(err, errlen, SK_E_CANNOT_WRITE_PATH, a->tmp, strerror(errno));
    a->tmp[0] = '\0';
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
