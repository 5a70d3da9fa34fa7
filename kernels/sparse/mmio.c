/* mmio.c: Matrix Market files (NIST's format, math.nist.gov/MatrixMarket)
 * to and from CRS matrices.
 *
 * The reader streams the file once, line by line, into host COO arrays
 * sized by the size line (twice the entries for a symmetric file), checks
 * every line as it goes (an error names the file, the line and the
 * offending token; nothing is built), then builds the matrix in the
 * target space with sk_sp_coo_to_csr (duplicates summed, rows sorted: a
 * file may hold more entries than m*n, as SciPy reads it). Only regular
 * files are read (a FIFO would block); a byte that is not text (a NUL, a
 * control character) is refused with its offset, and a file that ends
 * before the entries its size line announces is an error naming the line.
 * Supported: coordinate and array formats; real, integer and pattern
 * fields (pattern entries are 1); general, symmetric and skew-symmetric
 * symmetry (expanded: a symmetric file stores the lower triangle). Complex
 * and hermitian files are refused. A long read reports its progress
 * through io/'s sk_progress (the one bar, with its delay and rate limit).
 *
 * The writer copies the matrix to the host when it lives elsewhere and
 * writes a coordinate general file (real, integer or pattern) to a
 * temporary name it renames over 'path' when complete.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/err.h"
#include "../../io/io.h"
#include "sparse.h"

enum { MM_COORD, MM_ARRAY };
enum { MM_REAL, MM_INTEGER, MM_PATTERN, MM_COMPLEX };
enum { MM_GENERAL, MM_SYMMETRIC, MM_SKEW, MM_HERMITIAN };
/* the symmetry's name in messages */
static const char *sym_name(int sym) {
  return sym == MM_SYMMETRIC ? "symmetric" : sym == MM_SKEW ? "skew-symmetric" : "hermitian";
}

/* -- text files (graph/gio.c reads with these too) -------------------------- */
int sk_sp_line_fail_(char *err, size_t errlen, const char *path, int64_t lineno, int id,
                     ...) {
  sk_err(err, errlen, SK_E_FILE_LINE, path, (long long)lineno);
  size_t n = errlen ? strlen(err) : 0;
  va_list ap;
  va_start(ap, id);
  if (n + 1 < errlen) sk_verr(err + n, errlen - n, id, ap);
  va_end(ap);
  return -1;
}

char *sk_sp_token(char **p) {
  char *s = *p;
  while (*s && isspace((unsigned char)*s)) s++;
  if (!*s) {
    *p = s;
    return NULL;
  }
  char *t = s;
  while (*s && !isspace((unsigned char)*s)) s++;
  if (*s) *s++ = '\0';
  *p = s;
  return t;
}

/* -- reading ------------------------------------------------------------------ */
typedef struct mm_reader {
  const char *path;
  FILE *f;
  char *line;
  size_t cap;
  int64_t lineno;
  double bytes;
  sk_progress prog;
  char *err;
  size_t errlen;
  int failed; /* rd_line refused a line (the message is in err) */
} mm_reader;

#define rd_fail sk_sp_line_fail

/* the offset in 's' (n bytes) of a byte that is not text -- a NUL or a
 * control character other than whitespace -- or -1 (bytes from 0x80 are
 * UTF-8's, in comments) */
int64_t sk_sp_not_text(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if ((c < 0x20 && !(c >= '\t' && c <= '\r')) || c == 0x7f) return (int64_t)i;
  }
  return -1;
}

/* the next line (without its newline) or NULL at the end of the file, or
 * on a line that is not text ('failed' set, the message written) */
static char *rd_line(mm_reader *r) {
  ssize_t n = getline(&r->line, &r->cap, r->f);
  if (n < 0) return NULL;
  r->lineno++;
  int64_t at = sk_sp_not_text(r->line, (size_t)n);
  if (at >= 0) {
    r->failed = 1;
    rd_fail(r, SK_E_NOT_TEXT_BYTE, (unsigned)(unsigned char)r->line[at],
            (long long)r->bytes + at);
    return NULL;
  }
  r->bytes += (double)n;
  while (n > 0 && (r->line[n - 1] == '\n' || r->line[n - 1] == '\r')) r->line[--n] = '\0';
  if ((r->lineno & 0x3fff) == 0) sk_progress_step(&r->prog, r->bytes);
  return r->line;
}

static int blank(const char *s) {
  while (*s && isspace((unsigned char)*s)) s++;
  return *s == '\0';
}

/* the next non-blank, non-comment line, NULL at the end */
static char *rd_data(mm_reader *r) {
  char *s;
  while ((s = rd_line(r)) != NULL)
    if (s[0] != '%' && !blank(s)) return s;
  return NULL;
}

/* a non-negative integer token */
static int tok_int(mm_reader *r, const char *t, const char *what, int64_t *x) {
  char *end;
  errno = 0;
  long long v = strtoll(t, &end, 10);
  if (end == t || *end || errno == ERANGE) return rd_fail(r, SK_E_NOT_INTEGER, what, t);
  *x = v;
  return 0;
}

static int tok_value(mm_reader *r, const char *t, int field, double *x) {
  char *end;
  if (field == MM_INTEGER) {
    errno = 0;
    long long v = strtoll(t, &end, 10);
    if (end == t || *end || errno == ERANGE) return rd_fail(r, SK_E_VALUE_NOT_INTEGER, t);
    *x = (double)v;
    return 0;
  }
  double v = strtod(t, &end);
  if (end == t || *end) return rd_fail(r, SK_E_VALUE_NOT_NUMBER, t);
  *x = v;
  return 0;
}

/* the banner: "%%MatrixMarket matrix <format> <field> <symmetry>" */
static int rd_banner(mm_reader *r, int *format, int *field, int *sym) {
  char *s = rd_line(r);
  if (!s && r->failed) return -1;
  if (!s) {
    r->lineno = 1;
    return rd_fail(r, SK_E_FILE_EMPTY_NO);
  }
  char shown[64];
  snprintf(shown, sizeof shown, "%.60s", s);
  char *p = s;
  char *t[6];
  int n = 0;
  while (n < 6 && (t[n] = sk_sp_token(&p)) != NULL) n++;
  if (n < 1 || strcasecmp(t[0], "%%MatrixMarket") != 0)
    return rd_fail(r, SK_E_NOT_MATRIX_MARKET, shown);
  if (n != 5) return rd_fail(r, SK_E_BANNER_WORDS_EXPECTED, n);
  if (strcasecmp(t[1], "matrix") != 0) return rd_fail(r, SK_E_OBJECT_NOT_SUPPORTED, t[1]);
  if (strcasecmp(t[2], "coordinate") == 0) *format = MM_COORD;
  else if (strcasecmp(t[2], "array") == 0) *format = MM_ARRAY;
  else return rd_fail(r, SK_E_FORMAT_NOT_COORDINATE, t[2]);
  if (strcasecmp(t[3], "real") == 0 || strcasecmp(t[3], "double") == 0) *field = MM_REAL;
  else if (strcasecmp(t[3], "integer") == 0) *field = MM_INTEGER;
  else if (strcasecmp(t[3], "pattern") == 0) *field = MM_PATTERN;
  else if (strcasecmp(t[3], "complex") == 0) *field = MM_COMPLEX;
  else return rd_fail(r, SK_E_FIELD_NOT_REAL, t[3]);
  if (strcasecmp(t[4], "general") == 0) *sym = MM_GENERAL;
  else if (strcasecmp(t[4], "symmetric") == 0) *sym = MM_SYMMETRIC;
  else if (strcasecmp(t[4], "skew-symmetric") == 0) *sym = MM_SKEW;
  else if (strcasecmp(t[4], "hermitian") == 0 && *field == MM_COMPLEX) *sym = MM_HERMITIAN;
  else if (strcasecmp(t[4], "hermitian") == 0)
    return rd_fail(r, SK_E_SYMMETRY_HERMITIAN_NOT);
  else return rd_fail(r, SK_E_SYMMETRY_NOT_GENERAL, t[4]);
  if (*format == MM_ARRAY && *field == MM_PATTERN)
    return rd_fail(r, SK_E_ARRAY_FILE_CANNOT);
  return 0;
}

typedef struct mm_coo {
  sk_view rows, cols, vals;
  int64_t n, cap;
} mm_coo;

static void coo_put(mm_coo *c, int64_t i, int64_t j, double v, double vi, int dtype) {
  ((int64_t *)c->rows.data)[c->n] = i;
  ((int64_t *)c->cols.data)[c->n] = j;
  if (dtype == SK_F64) ((double *)c->vals.data)[c->n] = v;
  else if (dtype == SK_F32) ((float *)c->vals.data)[c->n] = (float)v;
  else sk_view_set_c(&c->vals, c->n, v, vi); /* complex */
  c->n++;
}

/* Read the body of the file (after the banner) into 'c'. */
static int rd_entries(mm_reader *r, int format, int field, int sym, int dtype,
                      int64_t *nrows, int64_t *ncols, mm_coo *c) {
  char *s = rd_data(r);
  if (!s && r->failed) return -1;
  if (!s) {
    r->lineno++;
    return rd_fail(r, SK_E_FILE_ENDS_BEFORE);
  }
  char *p = s, *t;
  int64_t sz[3] = {0, 0, 0};
  int want = format == MM_COORD ? 3 : 2, n = 0;
  while ((t = sk_sp_token(&p)) != NULL) {
    if (n == want) return rd_fail(r, SK_E_UNEXPECTED_AFTER_SIZE, t, want);
    if (tok_int(r, t, "size", &sz[n]) < 0) return -1;
    if (sz[n] < 0) return rd_fail(r, SK_E_SIZE_NEGATIVE, t);
    n++;
  }
  if (n < want)
    return rd_fail(r, SK_E_SIZE_LINE_NUMBERS, n, want,
                   format == MM_COORD ? "rows columns entries" : "rows columns");
  int64_t m = sz[0], nc = sz[1], nnz;
  if (m > INT32_MAX || nc > INT32_MAX)
    return rd_fail(r, SK_E_X_MATRIX_OVERFLOWS, (long long)m, (long long)nc, INT32_MAX);
  if (sym != MM_GENERAL && m != nc)
    return rd_fail(r, SK_E_MATRIX_MUST_SQUARE, sym_name(sym), (long long)m, (long long)nc);
  if (format == MM_COORD) {
    /* more entries than m*n are legal: duplicates, summed (SciPy's and
     * GAP's reading); the room below is bounded by the file's size */
    nnz = sz[2];
  } else {
    nnz = sym == MM_GENERAL ? m * nc : sym == MM_SKEW ? m * (m - 1) / 2 : m * (m + 1) / 2;
  }
  *nrows = m;
  *ncols = nc;
  int64_t cap = sym == MM_GENERAL ? nnz : nnz > INT64_MAX / 2 ? INT64_MAX : 2 * nnz;
  /* never more room than the rest of the file can fill: an entry takes at
   * least 2 bytes ("1\n" in an array file, 4 for "1 1\n" in a coordinate
   * one), so a short file announcing billions of entries allocates for
   * what it holds (found by fuzz_mm); it then ends "truncated" as before */
  struct stat st;
  long at = ftell(r->f);
  if (fstat(fileno(r->f), &st) == 0 && S_ISREG(st.st_mode) && at >= 0) {
    int64_t left = (int64_t)st.st_size - at;
    int64_t room = (left > 0 ? left : 0) / (format == MM_COORD ? 4 : 2) + 1;
    int64_t most = sym == MM_GENERAL ? room : 2 * room;
    if (cap > most) cap = most;
  }
  char msg[256];
  if (sk_sp_view(&c->rows, "mm rows", SK_I64, cap, SK_SPACE_HOST, 0, msg, sizeof msg) <
        0 ||
      sk_sp_view(&c->cols, "mm cols", SK_I64, cap, SK_SPACE_HOST, 0, msg, sizeof msg) <
        0 ||
      sk_sp_view(&c->vals, "mm values", dtype, cap, SK_SPACE_HOST, 0, msg, sizeof msg) <
        0)
    return rd_fail(r, SK_E_ENTRIES, (long long)nnz, msg);
  c->cap = cap;
  int64_t k = 0, ai = 0, aj = 0; /* array: the next (row, column) */
  if (format == MM_ARRAY && sym == MM_SKEW) ai = 1;
  while (k < nnz && (s = rd_data(r)) != NULL) {
    p = s;
    int64_t i = 0, j = 0;
    double v = 1, vi = 0;
    if (format == MM_COORD) {
      char *ti = sk_sp_token(&p), *tj = sk_sp_token(&p);
      if (!tj)
        return rd_fail(r, SK_E_ENTRY_EXPECTED_ROW, (long long)k + 1, (long long)nnz,
                       field == MM_PATTERN ? "" : " value", s);
      if (tok_int(r, ti, "row index", &i) < 0 || tok_int(r, tj, "column index", &j) < 0)
        return -1;
      if (i < 1 || i > m) return rd_fail(r, SK_E_ROW_INDEX_OUTSIDE, ti, (long long)m);
      if (j < 1 || j > nc)
        return rd_fail(r, SK_E_COLUMN_INDEX_OUTSIDE, tj, (long long)nc);
      i--;
      j--;
      if (field != MM_PATTERN) {
        char *tv = sk_sp_token(&p);
        if (!tv)
          return rd_fail(r, SK_E_ENTRY_NO_VALUE, (long long)i + 1, (long long)j + 1);
        if (tok_value(r, tv, field, &v) < 0) return -1;
        if (field == MM_COMPLEX) { /* "re im" */
          char *ti2 = sk_sp_token(&p);
          if (!ti2) return rd_fail(r, SK_E_MM_NO_IMAG, (long long)i + 1, (long long)j + 1);
          if (tok_value(r, ti2, field, &vi) < 0) return -1;
        }
      }
    } else {
      char *tv = sk_sp_token(&p);
      if (tok_value(r, tv, field, &v) < 0) return -1;
      if (field == MM_COMPLEX) {
        char *ti2 = sk_sp_token(&p);
        if (!ti2) return rd_fail(r, SK_E_MM_NO_IMAG, (long long)ai + 1, (long long)aj + 1);
        if (tok_value(r, ti2, field, &vi) < 0) return -1;
      }
      i = ai;
      j = aj;
      /* column-major; symmetric: the lower triangle, skew: below it */
      if (++ai >= m) {
        aj++;
        ai = sym == MM_GENERAL ? 0 : sym == MM_SKEW ? aj + 1 : aj;
      }
    }
    char *extra = sk_sp_token(&p);
    if (extra) return rd_fail(r, SK_E_UNEXPECTED_AFTER_ENTRY, extra);
    if (sym != MM_GENERAL && j > i)
      return rd_fail(r, SK_E_ENTRY_ABOVE_DIAGONAL, (long long)i + 1, (long long)j + 1,
                     sym_name(sym));
    if (sym == MM_SKEW && i == j)
      return rd_fail(r, SK_E_ENTRY_DIAGONAL_SKEW, (long long)i + 1, (long long)j + 1);
    if (format == MM_ARRAY && v == 0 && vi == 0) {
      k++;
      continue;
    }
    coo_put(c, i, j, v, vi, dtype);
    /* the mirror: A(j,i) = A(i,j), -A(i,j) (skew) or conj(A(i,j)) (hermitian) */
    if (sym != MM_GENERAL && i != j)
      coo_put(c, j, i, sym == MM_SKEW ? -v : v,
              sym == MM_SKEW ? -vi : sym == MM_HERMITIAN ? -vi : vi, dtype);
    k++;
  }
  if (r->failed) return -1;
  if (k < nnz) {
    r->lineno++;
    return rd_fail(r, SK_E_FILE_ENDS_AFTER, (long long)k, (long long)nnz);
  }
  if ((s = rd_data(r)) != NULL) return rd_fail(r, SK_E_MORE_ENTRIES_THAN, (long long)nnz);
  return r->failed ? -1 : 0;
}

/* sparse.read_mm: path, dtype ("float64"), space (the runtime's default)
 * -> C_rowptr, C_colidx, C_values, nrows, ncols */
static int read_mm(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                   size_t errlen) {
  static const char *const known[] = {"path", "dtype", "space", NULL};
  if (sk_karg_known(args, nargs, known, err, errlen) < 0) return -1;
  const char *path = sk_karg_str(args, nargs, "path", NULL, err, errlen);
  const char *dts =
    path ? sk_karg_str(args, nargs, "dtype", "float64", err, errlen) : NULL;
  if (!dts) return -1;
  int dtype = sk_dtype_parse(dts);
  int dtype_given = sk_karg_find(args, nargs, "dtype") != NULL;
  if (!sk_sp_is_float(dtype) && !(dtype >= 0 && sk_dtypes[dtype].is_complex)) {
    sk_err(err, errlen, SK_E_DTYPE_VALUES_MUST, dts);
    return -1;
  }
  const char *sps = sk_karg_str(args, nargs, "space", "", err, errlen);
  if (!sps) return -1; /* not a string: err says so */
  int space = *sps ? sk_space_parse(sps) : sk_rt_default_space(err, errlen);
  if (space < 0) {
    if (*sps) sk_err(err, errlen, SK_E_UNKNOWN_SPACE_NAMED, sps);
    return -1;
  }
  mm_reader r;
  memset(&r, 0, sizeof r);
  r.path = path;
  r.err = err;
  r.errlen = errlen;
  const char *kind;
  r.f = sk_rfile_open(path, &kind);
  if (!r.f) {
    if (kind) sk_err(err, errlen, SK_E_PATH_NOT_REGULAR, path, kind);
    else sk_err(err, errlen, SK_E_CANNOT_OPEN_PATH, path, strerror(errno));
    return -1;
  }
  struct stat st;
  char what[300];
  sk_err(what, sizeof what, SK_E_READ_MM, path);
  sk_progress_begin(&r.prog, what, fstat(fileno(r.f), &st) == 0 ? (double)st.st_size : 0);
  mm_coo c;
  memset(&c, 0, sizeof c);
  int format = 0, field = 0, sym = 0, rc = -1, read = 0;
  int64_t nrows = 0, ncols = 0;
  if (rd_banner(&r, &format, &field, &sym) < 0) goto done;
  /* a complex file: complex128 unless a complex dtype was asked for */
  if (field == MM_COMPLEX && !sk_dtypes[dtype].is_complex) {
    if (dtype_given) {
      rd_fail(&r, SK_E_MM_COMPLEX_DTYPE, dts);
      goto done;
    }
    dtype = SK_C128;
  }
  if (rd_entries(&r, format, field, sym, dtype, &nrows, &ncols, &c) < 0) goto done;
  sk_progress_step(&r.prog, r.bytes);
  read = 1;
  /* only the entries read count; the allocation stays as it was */
  c.rows.extent[0] = c.cols.extent[0] = c.vals.extent[0] = c.n;
  sk_view dr, dc, dv, rp, ci, va;
  memset(&dr, 0, sizeof dr);
  memset(&dc, 0, sizeof dc);
  memset(&dv, 0, sizeof dv);
  const sk_view *pr = &c.rows, *pc = &c.cols, *pv = &c.vals;
  const sk_backend *b = sk_sp_backend(err, errlen);
  if (!b) goto done;
  if (space != SK_SPACE_HOST || !b->reaches(SK_SPACE_HOST)) {
    if (sk_sp_view(&dr, "mm rows", SK_I64, c.n, space, 0, err, errlen) < 0 ||
        sk_sp_view(&dc, "mm cols", SK_I64, c.n, space, 0, err, errlen) < 0 ||
        sk_sp_view(&dv, "mm values", dtype, c.n, space, 0, err, errlen) < 0 ||
        sk_view_deep_copy(&dr, pr, err, errlen) < 0 ||
        sk_view_deep_copy(&dc, pc, err, errlen) < 0 ||
        sk_view_deep_copy(&dv, pv, err, errlen) < 0) {
      sk_view_release(&dr);
      sk_view_release(&dc);
      sk_view_release(&dv);
      goto done;
    }
    pr = &dr;
    pc = &dc;
    pv = &dv;
  }
  rc = sk_sp_coo_to_csr(nrows, ncols, pr, pc, pv, dtype, 1, 1, space, &rp, &ci, &va, err,
                        errlen);
  sk_view_release(&dr);
  sk_view_release(&dc);
  sk_view_release(&dv);
  if (rc == 0) {
    sk_kout_view(out, "C_rowptr", &rp, err, errlen);
    sk_kout_view(out, "C_colidx", &ci, err, errlen);
    sk_kout_view(out, "C_values", &va, err, errlen);
    sk_kout_num(out, "nrows", (double)nrows, err, errlen);
    rc = sk_kout_num(out, "ncols", (double)ncols, err, errlen);
  }
done:
  if (rc < 0 && read) sk_kerr_file(err, errlen, path); /* names the file */
  sk_progress_end(&r.prog);
  fclose(r.f);
  free(r.line);
  sk_view_release(&c.rows);
  sk_view_release(&c.cols);
  sk_view_release(&c.vals);
  return rc;
}

/* -- writing ------------------------------------------------------------------- */

/* the value of A(j, i) in 'w' (0: none), by a walk of row j */
static int mm_entry(const int64_t *ptr, const int32_t *col, const sk_view *va, int64_t j,
                    int64_t i, double *w) {
  for (int64_t k = ptr[j]; k < ptr[j + 1]; k++)
    if (col[k] == i) {
      *w = sk_view_get_f(va, k);
      return 1;
    }
  *w = 0;
  return 0;
}

/* symmetric / skew-symmetric: every entry has its mirror (A(j,i) = A(i,j),
 * or -A(i,j) and a zero diagonal), so the lower triangle says it all;
 * '*nlow' the entries kept (i > j, and i == j when symmetric) */
static int mm_check_sym(const sk_csr *A, const int64_t *ptr, const int32_t *col,
                        const sk_view *va, int sym, int field, int64_t *nlow, char *err,
                        size_t errlen) {
  const char *what = sym == MM_SKEW ? "skew-symmetric" : "symmetric";
  char sh[64];
  if (A->nrows != A->ncols) {
    sk_err(err, errlen, SK_E_SYMMETRY_NOT_SQUARE, what, sk_csr_shape(A, sh, sizeof sh));
    return -1;
  }
  int64_t n = 0;
  for (int64_t i = 0; i < A->nrows; i++)
    for (int64_t k = ptr[i]; k < ptr[i + 1]; k++) {
      const int64_t j = col[k];
      const double v = field == MM_PATTERN ? 1 : sk_view_get_f(va, k);
      double w;
      if (i == j) {
        if (sym == MM_SKEW && v != 0) {
          sk_err(err, errlen, SK_E_SYMMETRY_SKEW_SYMMETRIC, (long long)i, (long long)j,
                 v);
          return -1;
        }
        n += sym == MM_SYMMETRIC;
        continue;
      }
      int has = mm_entry(ptr, col, va, j, i, &w);
      if (field == MM_PATTERN) w = has;
      if (!has || w != (sym == MM_SKEW ? -v : v)) {
        if (!has)
          sk_err(err, errlen, SK_E_SYMMETRY_NO_ENTRY, what, (long long)i, (long long)j, v,
                 (long long)j, (long long)i);
        else
          sk_err(err, errlen, SK_E_SYMMETRY_BUT, what, (long long)i, (long long)j, v,
                 (long long)j, (long long)i, w);
        return -1;
      }
      n += i > j;
    }
  *nlow = n;
  return 0;
}

/* complex values: symmetric, skew-symmetric or hermitian (A(j,i) =
 * conj(A(i,j)), a real diagonal) checked as mm_check_sym does */
static int mm_check_csym(const sk_csr *A, const int64_t *ptr, const int32_t *col,
                         const sk_view *va, int sym, int64_t *nlow, char *err,
                         size_t errlen) {
  char sh[64];
  if (A->nrows != A->ncols) {
    sk_err(err, errlen, SK_E_SYMMETRY_NOT_SQUARE, sym_name(sym),
           sk_csr_shape(A, sh, sizeof sh));
    return -1;
  }
  int64_t n = 0;
  for (int64_t i = 0; i < A->nrows; i++)
    for (int64_t k = ptr[i]; k < ptr[i + 1]; k++) {
      const int64_t j = col[k];
      double vr, vi, wr = 0, wi = 0;
      sk_view_get_c(va, k, &vr, &vi);
      int has = i == j;
      if (i == j) {
        wr = vr, wi = vi; /* the diagonal's own mirror */
      } else {
        for (int64_t q = ptr[j]; q < ptr[j + 1]; q++)
          if (col[q] == i) {
            sk_view_get_c(va, q, &wr, &wi);
            has = 1;
            break;
          }
      }
      double er = sym == MM_SKEW ? -vr : vr;
      double ei = sym == MM_SYMMETRIC ? vi : -vi;
      if (!has || wr != er || wi != ei) {
        sk_err(err, errlen, SK_E_MM_CSYM_BUT, sym_name(sym), (long long)i, (long long)j, vr,
               vi, (long long)j, (long long)i, wr, wi);
        return -1;
      }
      n += sym == MM_SKEW ? i > j : i >= j;
    }
  *nlow = n;
  return 0;
}

static void mm_value(FILE *f, int field, int f32, double v) {
  if (field == MM_INTEGER) fprintf(f, " %lld\n", (long long)v);
  else fprintf(f, f32 ? " %.9g\n" : " %.17g\n", v);
}

/* sparse.write_mm: path, A_*, field ("real" | "integer" | "pattern"),
 * symmetry ("general" | "symmetric" | "skew-symmetric"), format
 * ("coordinate" | "array") */
static int write_mm(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                    size_t errlen) {
  static const char *const known[] = {"path",     "field",    "symmetry",
                                      "format",   "A_rowptr", "A_colidx",
                                      "A_values", "A_ncols",  NULL};
  static const char *const syms[] = {"general", "symmetric", "skew-symmetric", "hermitian"};
  (void)out;
  sk_csr A;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_csr_arg(args, nargs, "A", 1 | SK_CSR_CPLX, &A, err, errlen) < 0)
    return -1;
  const int cplx = sk_dtypes[A.values->dtype].is_complex;
  const char *path = sk_karg_str(args, nargs, "path", NULL, err, errlen);
  const char *fs =
    path ? sk_karg_str(args, nargs, "field", cplx ? "complex" : "real", err, errlen) : NULL;
  const char *ss =
    fs ? sk_karg_str(args, nargs, "symmetry", "general", err, errlen) : NULL;
  const char *ms =
    ss ? sk_karg_str(args, nargs, "format", "coordinate", err, errlen) : NULL;
  if (!ms) return -1;
  int field = strcmp(fs, "real") == 0      ? MM_REAL
              : strcmp(fs, "integer") == 0 ? MM_INTEGER
              : strcmp(fs, "pattern") == 0 ? MM_PATTERN
              : strcmp(fs, "complex") == 0 ? MM_COMPLEX
                                           : -1;
  if (field < 0) {
    sk_err(err, errlen, SK_E_FIELD_NOT_REAL, fs);
    return -1;
  }
  if (cplx && field != MM_COMPLEX) {
    sk_err(err, errlen, SK_E_MM_COMPLEX_FIELD, sk_dtypes[A.values->dtype].name, fs);
    return -1;
  }
  if (!cplx && field == MM_COMPLEX) {
    sk_err(err, errlen, SK_E_MM_REAL_FIELD, fs, sk_dtypes[A.values->dtype].name);
    return -1;
  }
  int sym = -1;
  for (int t = 0; t < 4; t++)
    if (strcmp(ss, syms[t]) == 0) sym = t;
  if (sym < 0 || (sym == MM_HERMITIAN && !cplx)) {
    if (sym == MM_HERMITIAN) sk_err(err, errlen, SK_E_SYMMETRY_HERMITIAN_NOT);
    else sk_err(err, errlen, SK_E_SYMMETRY_NOT_GENERAL, ss);
    return -1;
  }
  int format = strcmp(ms, "coordinate") == 0 ? MM_COORD
               : strcmp(ms, "array") == 0    ? MM_ARRAY
                                             : -1;
  if (format < 0) {
    sk_err(err, errlen, SK_E_FORMAT_NOT_COORDINATE, ms);
    return -1;
  }
  if (format == MM_ARRAY && field == MM_PATTERN) {
    sk_err(err, errlen, SK_E_FORMAT_ARRAY_HOLDS);
    return -1;
  }
  if (format == MM_ARRAY && cplx) {
    sk_err(err, errlen, SK_E_MM_COMPLEX_ARRAY);
    return -1;
  }
  if (field == MM_PATTERN && sym == MM_SKEW) {
    sk_err(err, errlen, SK_E_FIELD_PATTERN_NO);
    return -1;
  }
  if (format == MM_ARRAY) {
    /* a dense column, written one at a time: 8 bytes a row */
    char msg[512];
    if (sk_host_room(8 * (uint64_t)(A.nrows + 1), msg, sizeof msg) < 0) {
      sk_err(err, errlen, SK_E_FORMAT_ARRAY, msg);
      return -1;
    }
  }
  sk_view rp, ci, va;
  memset(&ci, 0, sizeof ci);
  memset(&va, 0, sizeof va);
  if (sk_sp_host_copy(A.rowptr, &rp, err, errlen) < 0) return -1;
  int rc = -1;
  FILE *f = NULL;
  double *dense = NULL;
  sk_afile af;
  af.tmp[0] = '\0';
  if (sk_sp_host_copy(A.colidx, &ci, err, errlen) < 0 ||
      sk_sp_host_copy(A.values, &va, err, errlen) < 0)
    goto done;
  const int64_t *ptr = rp.data;
  const int32_t *col = ci.data;
  if (field == MM_INTEGER)
    for (int64_t k = 0; k < A.nnz; k++) {
      double v = sk_view_get_f(&va, k);
      if (v != floor(v) || fabs(v) > 9.2e18) {
        sk_err(err, errlen, SK_E_FIELD_INTEGER_VALUE, v, (long long)k);
        goto done;
      }
    }
  int64_t nwrite = A.nnz;
  if (sym != MM_GENERAL &&
      (cplx ? mm_check_csym(&A, ptr, col, &va, sym, &nwrite, err, errlen)
            : mm_check_sym(&A, ptr, col, &va, sym, field, &nwrite, err, errlen)) < 0)
    goto done;
  f = sk_afile_open(&af, path, err, errlen);
  if (!f) goto done;
  fprintf(f, "%%%%MatrixMarket matrix %s %s %s\n%% written by speck\n",
          format == MM_ARRAY ? "array" : "coordinate", fs, ss);
  const int f32 = va.dtype == SK_F32 || va.dtype == SK_C64;
  if (format == MM_COORD) {
    fprintf(f, "%lld %lld %lld\n", (long long)A.nrows, (long long)A.ncols,
            (long long)nwrite);
    for (int64_t i = 0; i < A.nrows; i++)
      for (int64_t k = ptr[i]; k < ptr[i + 1]; k++) {
        if (sym == MM_SKEW ? col[k] >= i : sym != MM_GENERAL ? col[k] > i : 0) continue;
        fprintf(f, "%lld %d", (long long)i + 1, col[k] + 1);
        if (field == MM_PATTERN) {
          fputc('\n', f);
        } else if (cplx) { /* "re im" */
          double re, im;
          sk_view_get_c(&va, k, &re, &im);
          fprintf(f, f32 ? " %.9g %.9g\n" : " %.17g %.17g\n", re, im);
        } else {
          mm_value(f, field, f32, sk_view_get_f(&va, k));
        }
      }
  } else {
    /* column-major; symmetric: the lower triangle, skew: below the diagonal.
     * Column j is gathered from the rows with a walk of each (the file is
     * m*n lines long anyway) */
    fprintf(f, "%lld %lld\n", (long long)A.nrows, (long long)A.ncols);
    dense = malloc(8 * (size_t)(A.nrows + 1));
    if (!dense) {
      sk_err(err, errlen, SK_E_FORMAT_ARRAY_CANNOT, (long long)A.nrows);
      goto done;
    }
    for (int64_t j = 0; j < A.ncols; j++) {
      const int64_t i0 = sym == MM_GENERAL ? 0 : sym == MM_SYMMETRIC ? j : j + 1;
      for (int64_t i = i0; i < A.nrows; i++) mm_entry(ptr, col, &va, i, j, &dense[i]);
      for (int64_t i = i0; i < A.nrows; i++) {
        if (field == MM_INTEGER) fprintf(f, "%lld\n", (long long)dense[i]);
        else fprintf(f, f32 ? "%.9g\n" : "%.17g\n", dense[i]);
      }
    }
  }
  rc = sk_afile_commit(&af, f, err, errlen);
  f = NULL;
done:
  if (f) fclose(f);
  sk_afile_abandon(&af);
  free(dense);
  sk_view_release(&rp);
  sk_view_release(&ci);
  sk_view_release(&va);
  return rc;
}

static const sk_kentry e_read_mm = {"sparse.read_mm", "path [, dtype, space]",
                                    SK_KRES_NONE, read_mm};
static const sk_kentry e_write_mm = {
  "sparse.write_mm", "path, A_* [, field, symmetry, format]", SK_KRES_NONE, write_mm};
const sk_kentry *const sk_mmio_entries[] = {&e_read_mm, &e_write_mm, NULL};
