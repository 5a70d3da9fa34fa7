/* codegen.h: kernel source generation from a spec; no compiler, no
 * device. One core (codegen.c, agg.c: what every generator shares) with a
 * generator per code target on top (codegen_host.c: host C;
 * the GPU's), each filling its target's table (target.h).
 */
#ifndef SK_CODEGEN_H
#define SK_CODEGEN_H

#include "spec.h"

struct sk_buf;
struct sk_jit_target;

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
 * only (a generator whose other atomic views are proxies) */
char *sk_body_atomic(const sk_kspec *spec, int remote_only);
/* 'p' (n bytes: the body, after sk_body_atomic) with the element writes
 * and atomics of remote views made calls of their helpers (malloc'd), or
 * NULL when no capture is remote */
char *sk_body_remote(const sk_kspec *spec, const char *p, size_t n);
/* 'p' (n bytes) with a poll of the launch's stop word on the back edge
 * of every for, while and do loop (SK__GO; malloc'd), or NULL when it
 * has no loop */
char *sk_body_polls(const char *p, size_t n);

/* -- codegen.c: the core --------------------------------------------------- */
/* 1 if 'name' is a C keyword or a dialect word */
int sk_codegen_reserved(const char *name);
/* the first line of a source: a comment "speck <what> '<label, made
 * safe>' (<pattern>)" */
void sk_cg_title(struct sk_buf *b, const char *what, const sk_kspec *s);
/* dialect text without its #include lines */
void sk_cg_header(struct sk_buf *b, const char *text);
/* the target's dialect headers, in order */
void sk_cg_dialect(struct sk_buf *b, const struct sk_jit_target *t);
/* the prelude under its '#line', then '#line 1 "generated"' */
void sk_cg_prelude(struct sk_buf *b, const sk_kspec *s);
/* the finished source (malloc'd), or NULL with the message */
char *sk_cg_take(struct sk_buf *b, char *err, size_t errlen);
const char *sk_cg_slot(int dtype); /* sk_slot member */
/* the accumulator type with its identity and join: host C functions
 * (sk__init, sk__join, sk__layout), or the reducer type sk__R of a
 * target with 'acc_qual' */
void sk_codegen_acc(struct sk_buf *b, const sk_kspec *spec,
                    const struct sk_jit_target *t);
/* view element access: the view struct types and tiled offset functions
 * ('qual' their qualifiers), a tiled view's offset function, stride
 * locals, offset terms */
void sk_cg_view_types(struct sk_buf *b, const sk_kspec *s, const char *qual);
void sk_cg_tile_fn(struct sk_buf *b, const sk_capture *k, const char *qual);
void sk_cg_strides(struct sk_buf *b, const sk_capture *k);
void sk_cg_offset(struct sk_buf *b, const sk_capture *k, int c, const char *oob);
/* a remote view's compound update after its first lines, and its locals
 * and macros; 'ctx' the helpers' last argument */
void sk_cg_remote_upd(struct sk_buf *b, const sk_capture *k, const char *ctx);
void sk_cg_remote_unpack(struct sk_buf *b, const sk_kspec *s, const sk_capture *k, int c,
                         const char *ctx);
void sk_cg_index_alias(struct sk_buf *b, const sk_kspec *s, int d, const char *var,
                       const char *indent);
/* 'atomic': 0 leave updates as written, 1 rewrite those of every atomic
 * view, 2 of remote atomic views only (sk_body_atomic) */
void sk_cg_body(struct sk_buf *b, const sk_kspec *s, const char *indent,
                const char *label, int atomic);

/* -- agg.c: aggregate scalar types ----------------------------------------- */
/* the types and functions a kernel uses, spelled for target 't' (C:
 * _Generic macros; C++: overloads), and a type's name ("fad8") */
void sk_cg_agg(struct sk_buf *b, const sk_kspec *s, const struct sk_jit_target *t);
const char *sk_cg_agg_type(int kind, int n, char *buf, size_t len);

/* -- codegen_host.c: host C ------------------------------------------------ */
/* Generated source for 'spec' (malloc'd) or NULL with 'err' filled. */
char *sk_codegen_host(const sk_kspec *spec, char *err, size_t errlen);
/* host source holding only the accumulator of an image target's kernel
 * (libtcc) */
char *sk_codegen_host_acc(const sk_kspec *spec, char *err, size_t errlen);

#endif
