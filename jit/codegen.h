/* codegen.h: kernel source generation (codegen.c for the host,
 * codegen_cuda.c for NVRTC) from a spec; no compiler, no device.
 */
#ifndef SK_CODEGEN_H
#define SK_CODEGEN_H

#include "spec.h"

/* -- check.c: the body, read before anything is generated --------------- */
/* Check a spec before compiling: the shape of the body, prelude and
 * custom reducer code (sk_jit_check_text), capture and index names, index
 * counts of views in the body, team constructs. Returns < 0 with a
 * message. */
int sk_jit_check(const sk_kspec *spec, char *err, size_t errlen);
/* User text 'p' (n bytes; 'part' names it in messages: "body",
 * "prelude", "init", "join") can be pasted into generated source without
 * leaving its place: balanced brackets, closed comments and literals, no
 * directive, splice, trigraph, digraph, raw string, digit separator, NUL
 * or sk__ / SK__ name. Returns < 0 with a message naming the line. */
int sk_jit_check_text(const char *part, const char *p, size_t n, char *err,
                      size_t errlen);
/* the body with element updates of 'atomic' views made atomic (malloc'd),
 * or NULL when no capture has the trait; 'remote_only': of remote views
 * only (the CUDA generator's other atomic views are sk__aref proxies) */
char *sk_body_atomic(const sk_kspec *spec, int remote_only);
/* 'p' (n bytes: the body, after sk_body_atomic) with the element writes
 * and atomics of remote views made calls of their helpers (malloc'd), or
 * NULL when no capture is remote */
char *sk_body_remote(const sk_kspec *spec, const char *p, size_t n);

/* -- codegen.c --------------------------------------------------------- */
/* Generated source for 'spec' (malloc'd) or NULL with 'err' filled. */
char *sk_codegen_host(const sk_kspec *spec, char *err, size_t errlen);
/* pieces shared by the host and CUDA generators (codegen.c) */
struct sk_buf;
void sk_cg_header(struct sk_buf *b, const char *text);   /* without #include lines */
/* the first line of a source: a comment "speck <what> '<label, made
 * safe>' (<pattern>)" */
void sk_cg_title(struct sk_buf *b, const char *what, const sk_kspec *s);
const char *sk_cg_slot(int dtype);                        /* sk_slot member */
/* view element access: tiled offset function, stride locals, offset terms */
/* aggregate scalar types (agg.c): the types and functions a kernel uses
 * (cuda: C++ overloads), and a type's name ("fad8") */
void sk_cg_agg(struct sk_buf *b, const sk_kspec *s, int cuda);
const char *sk_cg_agg_type(int kind, int n, char *buf, size_t len);
void sk_cg_tile_fn(struct sk_buf *b, const sk_capture *k, const char *qual);
void sk_cg_strides(struct sk_buf *b, const sk_capture *k);
void sk_cg_remote_unpack(struct sk_buf *b, const sk_kspec *s, const sk_capture *k,
                         int c, const char *ctx);
void sk_cg_offset(struct sk_buf *b, const sk_capture *k, int c, const char *oob);
void sk_cg_index_alias(struct sk_buf *b, const sk_kspec *s, int d,
                       const char *var, const char *indent);
/* 'atomic': 0 leave updates as written, 1 rewrite those of every atomic
 * view, 2 of remote atomic views only (sk_body_atomic) */
void sk_cg_body(struct sk_buf *b, const sk_kspec *s, const char *indent,
                const char *label, int atomic);
/* 1 if 'name' is a C keyword or a dialect word */
int sk_codegen_reserved(const char *name);
struct sk_buf;
/* the accumulator type with its identity and join: host C (cuda == 0:
 * sk__init, sk__join, sk__layout) or CUDA C++ (reducer type sk__R) */
void sk_codegen_acc(struct sk_buf *b, const sk_kspec *spec, int cuda);
/* host source holding only the accumulator of a GPU kernel (libtcc) */
char *sk_codegen_host_acc(const sk_kspec *spec, char *err, size_t errlen);

/* -- codegen_cuda.c: the CUDA source (NVRTC, C++) ----------------------- */
char *sk_codegen_cuda(const sk_kspec *spec, char *err, size_t errlen);
/* MDRange dimensions in thread order, fastest (threadIdx.x) first */
void sk_codegen_cuda_perm(const sk_kspec *spec, int *perm);

#endif
