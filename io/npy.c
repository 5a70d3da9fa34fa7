/* npy.c: NumPy's .npy files (io.h).
 *
 * The format (numpy.lib.format): the magic "\x93NUMPY", a major and a minor
 * version byte, the header length (2 bytes little-endian in 1.0, 4 bytes
 * in 2.0 and 3.0), then the header: a Python dict literal
 *   {'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }
 * padded with spaces and a newline so the data start at a multiple of 64
 * bytes; then the elements, C order or Fortran order.
 *
 * A view whose layout is the file's order is read or written in place, in
 * chunks (so the progress of a large file can be shown); anything else
 * (another layout, device memory, a strided subview) goes through a host
 * view in the file's order and one deep_copy. Messages say what is wrong
 * in the file; the caller names the call and the file.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/err.h"
#include "io.h"

#define CHUNK      ((size_t)16 << 20) /* bytes per read or write */
#define MAGIC      "\x93NUMPY"
#define MAGIC_LEN  6
#define HEADER_MAX (1 << 20) /* a larger header is not a real one */

/* -- dtypes -------------------------------------------------------------- */
/* NumPy's kind character and item size of each speck dtype */
static const struct {
  char kind;
  int size;
} npy_of[SK_NDTYPE] = {
  [SK_F64] = {'f', 8}, [SK_F32] = {'f', 4},  [SK_I64] = {'i', 8}, [SK_I32] = {'i', 4},
  [SK_I16] = {'i', 2}, [SK_I8] = {'i', 1},   [SK_U64] = {'u', 8}, [SK_U32] = {'u', 4},
  [SK_U8] = {'u', 1},  [SK_BOOL] = {'b', 1},  [SK_C128] = {'c', 16}, [SK_C64] = {'c', 8},
};

/* "<f8" for 'dtype' into buf (little-endian: the hosts speck runs on) */
static void descr_of(int dtype, char *buf, size_t n) {
  int one = npy_of[dtype].size == 1;
  snprintf(buf, n, "%c%c%d", one ? '|' : '<', npy_of[dtype].kind, npy_of[dtype].size);
}

/* NumPy's name of a descr speck has no dtype for, for messages */
static const char *numpy_name(char kind, int size) {
  switch (kind) {
  case 'f': return size == 2 ? "float16" : size == 16 ? "float128" : "a float";
  case 'u': return size == 2 ? "uint16" : "an unsigned integer";
  case 'i': return "an integer";
  case 'c': return size == 8 ? "complex64" : size == 16 ? "complex128" : "a complex";
  case 'S':
  case 'a': return "bytes";
  case 'U': return "str";
  case 'O': return "object";
  case 'V': return "void (raw or structured)";
  case 'M': return "datetime64";
  case 'm': return "timedelta64";
  }
  return "unknown";
}

/* Parse a descr ("<f8", "|b1", ">i4"): the speck dtype and whether the
 * data are big-endian; -1 with a message. */
static int parse_descr(const char *d, int *dtype, int *swap, char *err, size_t errlen) {
  static const char have[] = "float64 float32 int64 int32 int16 int8 uint64 "
                             "uint32 uint8 bool complex128 complex64";
  char order = d[0];
  if (order != '<' && order != '>' && order != '|' && order != '=')
    return sk_err(err, errlen, SK_E_MALFORMED_HEADER_DTYPE, d);
  char kind = d[1];
  char *end;
  long size = kind ? strtol(d + 2, &end, 10) : 0;
  if (!kind || end == d + 2 || *end != '\0' || size <= 0)
    return sk_err(err, errlen, SK_E_MALFORMED_HEADER_DTYPE_NOT, d);
  for (int t = 0; t < SK_NDTYPE; t++) {
    if (npy_of[t].kind == kind && npy_of[t].size == size) {
      *dtype = t;
      *swap = order == '>' && size > 1;
      return 0;
    }
  }
  return sk_err(err, errlen, SK_E_DTYPE_NO_SPECK, d, numpy_name(kind, (int)size), have);
}

/* -- the header ------------------------------------------------------------ */
typedef struct npy_header {
  int dtype, swap, fortran, rank;
  int64_t shape[SK_MAXRANK];
} npy_header;

typedef struct parser {
  const char *s, *p;
  char *err;
  size_t errlen;
} parser;

static void skip_ws(parser *ps) {
  while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r') ps->p++;
}

static int bad(parser *ps, const char *expected) {
  return sk_err(ps->err, ps->errlen, SK_E_MALFORMED_HEADER_BYTE, (int)(ps->p - ps->s),
                expected, *ps->p ? ps->p : "(end)");
}

static int expect(parser *ps, char c, const char *what) {
  skip_ws(ps);
  if (*ps->p != c) return bad(ps, what);
  ps->p++;
  return 0;
}

/* a quoted Python string (no escapes: none occur in a valid header) */
static int parse_str(parser *ps, char *out, size_t n) {
  skip_ws(ps);
  char q = *ps->p;
  if (q != '\'' && q != '"') return bad(ps, "a quoted string");
  const char *b = ++ps->p;
  while (*ps->p && *ps->p != q) ps->p++;
  if (!*ps->p) return bad(ps, "the end of a string");
  size_t len = (size_t)(ps->p - b);
  if (len >= n) len = n - 1;
  memcpy(out, b, len);
  out[len] = '\0';
  ps->p++;
  return 0;
}

static int parse_shape(parser *ps, npy_header *h) {
  if (expect(ps, '(', "'(' opening the shape") < 0) return -1;
  h->rank = 0;
  for (;;) {
    skip_ws(ps);
    if (*ps->p == ')') break;
    char *end;
    errno = 0;
    long long x = strtoll(ps->p, &end, 10);
    if (end == ps->p) return bad(ps, "an extent (an integer)");
    if (x < 0 || errno == ERANGE)
      return sk_err(ps->err, ps->errlen, SK_E_MALFORMED_HEADER_EXTENT, x);
    if (h->rank == SK_MAXRANK)
      return sk_err(ps->err, ps->errlen, SK_E_SHAPE_MORE_THAN, SK_MAXRANK, SK_MAXRANK);
    h->shape[h->rank++] = x;
    ps->p = end;
    if (*ps->p == 'L') ps->p++; /* Python 2's long literals */
    skip_ws(ps);
    if (*ps->p == ',') ps->p++;
    else if (*ps->p != ')') return bad(ps, "',' or ')' in the shape");
  }
  ps->p++;
  return 0;
}

/* Parse the dict literal of 'text' into 'h'. */
static int parse_header(const char *text, npy_header *h, char *err, size_t errlen) {
  parser ps = {text, text, err, errlen};
  int seen_descr = 0, seen_order = 0, seen_shape = 0;
  char key[64], descr[64];
  if (expect(&ps, '{', "'{' opening the header dict") < 0) return -1;
  for (;;) {
    skip_ws(&ps);
    if (*ps.p == '}') break;
    if (parse_str(&ps, key, sizeof key) < 0) return -1;
    if (expect(&ps, ':', "':' after a key") < 0) return -1;
    skip_ws(&ps);
    if (strcmp(key, "descr") == 0) {
      if (*ps.p == '[') return sk_err(err, errlen, SK_E_STRUCTURED_DTYPE_LIST);
      if (parse_str(&ps, descr, sizeof descr) < 0) return -1;
      if (parse_descr(descr, &h->dtype, &h->swap, err, errlen) < 0) return -1;
      seen_descr = 1;
    } else if (strcmp(key, "fortran_order") == 0) {
      if (strncmp(ps.p, "True", 4) == 0) h->fortran = 1, ps.p += 4;
      else if (strncmp(ps.p, "False", 5) == 0) h->fortran = 0, ps.p += 5;
      else return bad(&ps, "True or False for 'fortran_order'");
      seen_order = 1;
    } else if (strcmp(key, "shape") == 0) {
      if (parse_shape(&ps, h) < 0) return -1;
      seen_shape = 1;
    } else {
      return sk_err(err, errlen, SK_E_MALFORMED_HEADER_UNKNOWN, key);
    }
    skip_ws(&ps);
    if (*ps.p == ',') ps.p++;
    else if (*ps.p != '}') return bad(&ps, "',' or '}' in the header dict");
  }
  ps.p++;
  skip_ws(&ps);
  if (*ps.p) return bad(&ps, "the end of the header after the dict");
  const char *missing = !seen_descr   ? "descr"
                        : !seen_order ? "fortran_order"
                        : !seen_shape ? "shape"
                                      : NULL;
  if (missing) return sk_err(err, errlen, SK_E_MALFORMED_HEADER_NO, missing);
  return 0;
}

static void format_shape(const npy_header *h, char *buf, size_t n) {
  size_t l = (size_t)snprintf(buf, n, "(");
  for (int d = 0; d < h->rank && l < n; d++)
    l +=
      (size_t)snprintf(buf + l, n - l, "%s%lld", d ? ", " : "", (long long)h->shape[d]);
  if (l < n) snprintf(buf + l, n - l, h->rank == 1 ? ",)" : ")");
}

/* Read the magic, version and header of 'f'; leaves 'f' at the data. */
static int read_header(FILE *f, npy_header *h, char *err, size_t errlen) {
  unsigned char pre[12];
  size_t got = fread(pre, 1, 10, f);
  if (got < MAGIC_LEN || memcmp(pre, MAGIC, MAGIC_LEN) != 0)
    return sk_err(err, errlen, SK_E_NOT_NPY_FILE);
  if (got < 10) return sk_err(err, errlen, SK_E_TRUNCATED_FILE_ENDS);
  int major = pre[6], minor = pre[7];
  size_t hlen;
  if (major == 1) {
    hlen = (size_t)pre[8] | (size_t)pre[9] << 8;
  } else if (major == 2 || major == 3) {
    if (fread(pre + 10, 1, 2, f) != 2)
      return sk_err(err, errlen, SK_E_TRUNCATED_FILE_ENDS);
    hlen = (size_t)pre[8] | (size_t)pre[9] << 8 | (size_t)pre[10] << 16 |
           (size_t)pre[11] << 24;
  } else {
    return sk_err(err, errlen, SK_E_UNSUPPORTED_NPY_FORMAT, major, minor);
  }
  if (hlen > HEADER_MAX) return sk_err(err, errlen, SK_E_MALFORMED_HEADER_LENGTH, hlen);
  char *text = malloc(hlen + 1);
  if (!text) return sk_err(err, errlen, SK_E_NOMEM);
  got = fread(text, 1, hlen, f);
  if (got < hlen) {
    free(text);
    return sk_err(err, errlen, SK_E_TRUNCATED_HEADER_BYTES, got, hlen);
  }
  text[hlen] = '\0';
  if (strlen(text) != hlen) {
    free(text);
    return sk_err(err, errlen, SK_E_MALFORMED_HEADER_HOLDS);
  }
  memset(h, 0, sizeof *h);
  int rc = parse_header(text, h, err, errlen);
  free(text);
  return rc;
}

/* -- loading --------------------------------------------------------------- */
static void byteswap(void *data, int64_t n, size_t es) {
  unsigned char *p = data;
  for (int64_t i = 0; i < n; i++, p += es)
    for (size_t a = 0, b = es - 1; a < b; a++, b--) {
      unsigned char t = p[a];
      p[a] = p[b];
      p[b] = t;
    }
}

/* Read 'bytes' of data into 'dst', reporting progress; -1 with a message
 * naming the shortfall. */
static int read_data(FILE *f, const char *path, void *dst, size_t bytes,
                     const npy_header *h, char *err, size_t errlen) {
  sk_progress pr;
  char what[300];
  sk_err(what, sizeof what, SK_E_LOAD_NPY, path);
  sk_progress_begin(&pr, what, (double)bytes);
  size_t done = 0;
  while (done < bytes) {
    size_t want = bytes - done < CHUNK ? bytes - done : CHUNK;
    size_t got = fread((char *)dst + done, 1, want, f);
    done += got;
    sk_progress_step(&pr, (double)done);
    if (got < want) break;
  }
  sk_progress_end(&pr);
  if (done < bytes) {
    if (ferror(f)) return sk_err(err, errlen, SK_E_READ_ERROR, strerror(errno));
    char shape[SK_MAXRANK * 24];
    format_shape(h, shape, sizeof shape);
    return sk_err(err, errlen, SK_E_TRUNCATED_DATA_SHAPE, shape, sk_dtypes[h->dtype].name,
                  bytes, done);
  }
  return 0;
}

int sk_npy_load(sk_view *out, const char *path, int space, int layout, const char *label,
                char *err, size_t errlen) {
  npy_header h;
  const char *kind;
  FILE *f = sk_rfile_open(path, &kind);
  if (!f && kind) return sk_err(err, errlen, SK_E_NOT_REGULAR_READ, kind);
  if (!f) return sk_err(err, errlen, SK_E_CANNOT_OPEN, strerror(errno));
  if (read_header(f, &h, err, errlen) < 0) {
    fclose(f);
    return -1;
  }
  int file_layout = h.fortran ? SK_LEFT : SK_RIGHT;
  if (layout < 0) layout = file_layout;
  int64_t n = 1;
  size_t es = sk_dtypes[h.dtype].size, bytes = 0;
  for (int d = 0; d < h.rank; d++)
    if (__builtin_mul_overflow(n, h.shape[d], &n)) n = -1;
  if (n < 0 || __builtin_mul_overflow((size_t)n, es, &bytes)) {
    fclose(f);
    return sk_err(err, errlen, SK_E_MALFORMED_HEADER_SHAPE);
  }
  /* a regular file too short for its shape is refused before the view is
   * allocated (a 20-byte file claiming 8 GB must not ask for 8 GB) */
  struct stat st;
  long at = ftell(f);
  if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && at >= 0 &&
      (uint64_t)st.st_size - (uint64_t)at < bytes) {
    char shape[SK_MAXRANK * 24];
    format_shape(&h, shape, sizeof shape);
    fclose(f);
    return sk_err(err, errlen, SK_E_TRUNCATED_DATA_SHAPE_NEEDS, shape,
                  sk_dtypes[h.dtype].name, bytes,
                  (unsigned long long)((uint64_t)st.st_size - (uint64_t)at));
  }
  /* read in place when the view is host memory in the file's order */
  int direct = sk_space_host_accessible(space) && (layout == file_layout || h.rank <= 1);
  sk_view tmp, *dst = direct ? out : &tmp;
  const char *lb = label ? label : path;
  char msg[512];
  memset(&tmp, 0, sizeof tmp);
  if (sk_view_create(dst, lb, h.dtype, h.rank, h.shape, direct ? layout : file_layout,
                     direct ? space : SK_SPACE_HOST, 0, NULL, msg, sizeof msg) < 0) {
    fclose(f);
    return sk_err(err, errlen, SK_E_MSG, msg);
  }
  int rc = read_data(f, path, dst->data, bytes, &h, err, errlen);
  fclose(f);
  /* complex: each part is swapped on its own */
  if (rc == 0 && h.swap && sk_dtypes[h.dtype].is_complex) byteswap(dst->data, 2 * n, es / 2);
  else if (rc == 0 && h.swap) byteswap(dst->data, n, es);
  if (rc == 0 && h.dtype == SK_BOOL) {
    unsigned char *b = dst->data; /* any non-zero byte is true */
    for (int64_t i = 0; i < n; i++) b[i] = b[i] != 0;
  }
  if (rc == 0 && !direct) {
    if (sk_view_create(out, lb, h.dtype, h.rank, h.shape, layout, space, 0, NULL, msg,
                       sizeof msg) < 0 ||
        sk_view_deep_copy(out, &tmp, msg, sizeof msg) < 0) {
      rc = sk_err(err, errlen, SK_E_MSG, msg);
    }
    sk_view_release(&tmp);
  }
  if (rc < 0 && out->alloc) {
    sk_view_release(out);
    memset(out, 0, sizeof *out);
  }
  return rc;
}

/* -- saving ------------------------------------------------------------------ */
/* The preamble and header of 'v' (version 1.0, padded to 64 bytes) into
 * 'buf'; its length. */
static size_t make_header(const sk_view *v, int fortran, char *buf, size_t n) {
  char descr[16], shape[SK_MAXRANK * 24];
  npy_header h = {.rank = v->rank};
  for (int d = 0; d < v->rank; d++) h.shape[d] = v->extent[d];
  descr_of(v->dtype, descr, sizeof descr);
  format_shape(&h, shape, sizeof shape);
  memcpy(buf, MAGIC "\x01\x00", MAGIC_LEN + 2);
  size_t l = MAGIC_LEN + 4;
  l += (size_t)snprintf(buf + l, n - l,
                        "{'descr': '%s', 'fortran_order': %s, "
                        "'shape': %s, }",
                        descr, fortran ? "True" : "False", shape);
  size_t total = (l + 1 + 63) / 64 * 64; /* with the newline */
  memset(buf + l, ' ', total - l - 1);
  buf[total - 1] = '\n';
  size_t hlen = total - MAGIC_LEN - 4;
  buf[MAGIC_LEN + 2] = (char)(hlen & 0xff);
  buf[MAGIC_LEN + 3] = (char)(hlen >> 8);
  return total;
}

int sk_npy_save(const char *path, const sk_view *v, char *err, size_t errlen) {
  char msg[512];
  int64_t n = sk_view_size(v);
  if (!v->data && n > 0) return sk_err(err, errlen, SK_E_VIEW_NO_MEMORY, v->label);
  /* written as it lies when it is host memory in C or Fortran order */
  int direct = sk_space_host_accessible(v->space) &&
               (v->layout == SK_RIGHT || v->layout == SK_LEFT) && sk_view_contiguous(v);
  sk_view tmp;
  const sk_view *src = v;
  memset(&tmp, 0, sizeof tmp);
  if (!direct) {
    int lay = sk_layout_order(v->layout) == SK_LEFT ? SK_LEFT : SK_RIGHT;
    int st = sk_view_create(&tmp, v->label, v->dtype, v->rank, v->extent, lay,
                            SK_SPACE_HOST, 0, NULL, msg, sizeof msg);
    tmp.agg = v->agg; /* aggregates: float64, the components last */
    tmp.agg_n = v->agg_n;
    if (st < 0 || sk_view_deep_copy(&tmp, v, msg, sizeof msg) < 0) {
      sk_view_release(&tmp);
      return sk_err(err, errlen, SK_E_MSG, msg);
    }
    src = &tmp;
  }
  char head[SK_MAXRANK * 24 + 128];
  size_t hl =
    make_header(src, src->layout == SK_LEFT && src->rank > 1, head, sizeof head);
  size_t bytes = (size_t)n * sk_dtypes[v->dtype].size;
  int rc = 0;
  /* written to a temporary file beside 'path' and renamed over it when
   * complete: a failed write (a full disk, a size limit) leaves the file
   * that was there */
  sk_afile af;
  FILE *f = sk_afile_open(&af, path, msg, sizeof msg);
  if (!f) {
    rc = sk_err(err, errlen, SK_E_CANNOT_OPEN_WRITING, strerror(errno));
  } else {
    sk_progress pr;
    char what[300];
    sk_err(what, sizeof what, SK_E_SAVE_NPY, path);
    sk_progress_begin(&pr, what, (double)bytes);
    size_t done = 0;
    int ok = fwrite(head, 1, hl, f) == hl;
    while (ok && done < bytes) {
      size_t want = bytes - done < CHUNK ? bytes - done : CHUNK;
      ok = fwrite((const char *)src->data + done, 1, want, f) == want;
      done += want;
      sk_progress_step(&pr, (double)done);
    }
    sk_progress_end(&pr);
    if (ok && fflush(f) != 0)
      ok = 0; /* the last bytes out: their error is a write error */
    if (!ok) {
      int e = errno;
      fclose(f);
      sk_afile_abandon(&af);
      rc = sk_err(err, errlen, SK_E_WRITE_ERROR, strerror(e));
    } else if (sk_afile_commit(&af, f, msg, sizeof msg) < 0) {
      rc = sk_err(err, errlen, SK_E_MSG, msg);
    }
  }
  sk_view_release(&tmp);
  return rc;
}
