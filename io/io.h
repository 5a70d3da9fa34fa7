/* io.h: views to and from files, and the progress of long reads, writes
 * and library calls. No Lua here (vm/lio.c binds it) and nothing printed:
 * progress goes through a hook that the VM sets.
 *
 * Layer: above backends/ (views, copies between spaces), below kernels/
 * and vm/; drivers of the library report their progress through
 * sk_progress_* too, so there is one bar and one rate limit.
 */
#ifndef SK_IO_H
#define SK_IO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/view.h"

/* -- progress ------------------------------------------------------------
 * A long operation opens a 'sk_progress', steps it as often as it likes
 * (cheap: a clock read) and ends it. The hook is called only once
 * 'delay' seconds have passed since the start, then at most once per
 * 'interval', and once more with 'finished' set when it was called at all,
 * so short operations never report. 'done' of 'total' units (bytes,
 * iterations); 'elapsed' seconds since the start. The hook runs on the
 * thread that steps; it must not raise or block. */
typedef void (*sk_progress_fn)(const char *what, double done, double total,
                               double elapsed, int finished);

typedef struct sk_progress {
  char what[256];
  double total, t0, last;
  int shown; /* the hook was called */
} sk_progress;

void sk_progress_set_hook(sk_progress_fn fn);
sk_progress_fn sk_progress_hook(void);
/* seconds before the first report (default 0.5) and between reports
 * (default 0.1); negative values keep the current setting */
void sk_progress_set_timing(double delay, double interval);
void sk_progress_get_timing(double *delay, double *interval);

void sk_progress_begin(sk_progress *p, const char *what, double total);
void sk_progress_step(sk_progress *p, double done);
void sk_progress_end(sk_progress *p);

/* -- files written whole (afile.c) ----------------------------------------
 * sk_afile_open opens a temporary file beside 'path' (NULL with the
 * message when it cannot); sk_afile_commit closes it and renames it over
 * 'path' (0), or removes it (-1 with the message); sk_afile_abandon
 * removes it after a failure of the caller's own (the caller closes its
 * FILE first). A reader never sees a half-written file. */
typedef struct sk_afile {
  const char *path;
  char tmp[4200]; /* the temporary file's name, "" when none */
} sk_afile;
FILE *sk_afile_open(sk_afile *a, const char *path, char *err, size_t errlen);
/* the same, gzip-compressed when 'path' ends in ".gz" (what sk_lines_open
 * reads back) */
FILE *sk_afile_open_z(sk_afile *a, const char *path, char *err, size_t errlen);
int sk_afile_commit(sk_afile *a, FILE *f, char *err, size_t errlen);
void sk_afile_abandon(sk_afile *a);

/* -- files read (afile.c) --------------------------------------------------
 * sk_rfile_open opens 'path' for reading when it is a regular file, never
 * blocking on it: a FIFO, a device, a directory or a socket is refused
 * before it is opened (a FIFO would block, a device never end). NULL with
 * '*kind' naming what the path is ("a FIFO (named pipe)"), or with '*kind'
 * NULL and errno set when it cannot be opened. */
FILE *sk_rfile_open(const char *path, const char **kind);

/* -- text read line by line, plain or gzip (lines.c) ---------------------
 * sk_lines_open opens a regular file (refusals as sk_rfile_open's, with
 * the message); a file starting with gzip's magic is inflated as it is
 * read (streaming; members concatenated as gzip -d does). sk_lines_next
 * gives the next line ('*line' NUL-terminated, its newline kept; valid
 * until the next call) and its length, 0 at the end, -1 with a message
 * naming the file (corrupt or truncated compressed data: the byte offset
 * in the file too). 'raw' counts the bytes of the file read so far and
 * 'size' is its size (progress); 'gz' says whether it is compressed. */
typedef struct sk_lines {
  const char *path;
  FILE *f;
  void *z; /* the inflate state */
  int gz, eof;
  char *buf, *line;
  size_t cap, len, pos, lcap;
  double raw, size;
} sk_lines;
int sk_lines_open(sk_lines *s, const char *path, char *err, size_t errlen);
int64_t sk_lines_next(sk_lines *s, char **line, char *err, size_t errlen);
void sk_lines_close(sk_lines *s);

/* -- NumPy .npy (format 1.0 written; 1.0, 2.0 and 3.0 read) --------------
 * Every speck dtype: float64 '<f8', float32 '<f4', int64 '<i8', int32
 * '<i4', int16 '<i2', int8 '|i1', uint64 '<u8', uint32 '<u4', uint8 '|u1',
 * bool '|b1'. Layout right is C order, left Fortran order. Errors name
 * the file and what is wrong in it (bad magic, a malformed header, a dtype
 * speck has no match for, a truncated file); the caller adds its name. */

/* Write 'v' (any space, any layout: a strided or device view is staged
 * through a host copy in C order) to 'path'. */
int sk_npy_save(const char *path, const sk_view *v, char *err, size_t errlen);

/* Read 'path' into 'out', a new view in 'space' labelled 'label' (NULL:
 * the path), with the file's layout ('layout' < 0) or 'layout' (right or
 * left; the data are reordered). 'out' must be empty; it is left empty on
 * an error. */
int sk_npy_load(sk_view *out, const char *path, int space, int layout, const char *label,
                char *err, size_t errlen);

#endif
