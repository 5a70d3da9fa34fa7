/* recur.c: linear_recurrence over a property map (seed 003 §4.3.4, MTGL's
 * parallel prefix named after the Cray XMT's linear recurrences), in
 * place:
 *   op only:      x(i) = x(i - 1) op x(i)              (op sum, prod, min, max)
 *   coefficients: x(i) = a(i) * x(i - 1) + x(i)        (x(-1) = 0)
 * Both are scans of an associative operation (the second composes the
 * affine maps z -> a(i) z + x(i)), run as three passes over blocks: each
 * block folds its elements, one thread scans the blocks' folds into
 * carries, and each block rescans its elements from its carry. Any
 * numeric dtype; the order of operations is fixed by the block size, so a
 * result is the same from run to run on a back end.
 */
#include <stdio.h>
#include <string.h>

#include "core/err.h"
#include "graph.h"
#include "kbodies.h"

/* the block size of the host and of a GPU */
#define BS_HOST_MIN 4096
#define BS_GPU      1024

#define SIG_BLK(T) "range" R1("x", T) R1("agg", T) " n=int64 bs=int64"
#define SIG_CAR(T) "range" R1("agg", T) " nb=int64"
static const char *const sig_blk[] = {SIG_BLK("float64"), SIG_BLK("int64"), NULL};
static const char *const sig_car[] = {SIG_CAR("float64"), SIG_CAR("int64"), NULL};

/* the three bodies of one operation (recur.sk: a template of it) */
#define OPS(NAME) \
  static const sk_kbody k_red_##NAME = {.label = "graph.recurrence_fold_" #NAME, \
                                        .body = sk_body_graph_recurrence_fold_##NAME, \
                                        .pattern = SK_FOR, \
                                        .sigs = sig_blk}; \
  static const sk_kbody k_car_##NAME = {.label = "graph.recurrence_carry_" #NAME, \
                                        .body = sk_body_graph_recurrence_carry_##NAME, \
                                        .pattern = SK_FOR, \
                                        .sigs = sig_car}; \
  static const sk_kbody k_app_##NAME = {.label = "graph.recurrence_apply_" #NAME, \
                                        .body = sk_body_graph_recurrence_apply_##NAME, \
                                        .pattern = SK_FOR, \
                                        .sigs = sig_blk};

OPS(sum)
OPS(prod)
OPS(min)
OPS(max)

/* the affine recurrence: the fold of a block is the map z -> A z + B */
#define SIG_ABLK(T) \
  "range" R1("x", T) R1("a", T) R1("agg", T) R1("aggA", T) " n=int64 bs=int64"
#define SIG_ACAR(T) "range" R1("agg", T) R1("aggA", T) " nb=int64"
static const char *const sig_ablk[] = {SIG_ABLK("float64"), NULL};
static const char *const sig_acar[] = {SIG_ACAR("float64"), NULL};
static const sk_kbody k_red_aff = {.label = "graph.recurrence_fold_affine",
                                   .body = sk_body_graph_recurrence_fold_affine,
                                   .pattern = SK_FOR,
                                   .sigs = sig_ablk};
/* agg(b) becomes z entering block b (the recurrence's value before it) */
static const sk_kbody k_car_aff = {.label = "graph.recurrence_carry_affine",
                                   .body = sk_body_graph_recurrence_carry_affine,
                                   .pattern = SK_FOR,
                                   .sigs = sig_acar};
static const sk_kbody k_app_aff = {.label = "graph.recurrence_apply_affine",
                                   .body = sk_body_graph_recurrence_apply_affine,
                                   .pattern = SK_FOR,
                                   .sigs = sig_ablk};

/* graph.linear_recurrence: x (rank-1, numeric) [, op "sum" | "prod" |
 * "min" | "max", a (coefficients, x's dtype and extent; op sum only)] */
static int recurrence(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                      size_t errlen) {
  static const char *const known[] = {"x", "op", "a", NULL};
  static const char *const names[] = {"sum", "prod", "min", "max"};
  const sk_kbody *const red[] = {&k_red_sum, &k_red_prod, &k_red_min, &k_red_max};
  const sk_kbody *const car[] = {&k_car_sum, &k_car_prod, &k_car_min, &k_car_max};
  const sk_kbody *const app[] = {&k_app_sum, &k_app_prod, &k_app_min, &k_app_max};
  (void)out;
  const sk_view *x, *a = NULL;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      !(x = sk_karg_view(args, nargs, "x", -1, err, errlen)))
    return -1;
  if (x->agg || x->rank != 1 || x->dtype == SK_BOOL) {
    sk_err(err, errlen, SK_E_PROPERTY_MAP_VIEW, x->label, x->agg ? "aggregate " : "",
           sk_dtypes[x->dtype].name, x->agg ? x->rank - 1 : x->rank);
    return -1;
  }
  const char *op = sk_karg_str(args, nargs, "op", "sum", err, errlen);
  if (!op) return -1;
  int o = -1;
  for (int k = 0; k < 4; k++)
    if (strcmp(op, names[k]) == 0) o = k;
  if (o < 0) {
    sk_err(err, errlen, SK_E_OP_MUST_SUM, op);
    return -1;
  }
  if (sk_karg_find(args, nargs, "a")) {
    if (!(a = sk_karg_view(args, nargs, "a", 1, err, errlen))) return -1;
    if (o != 0) {
      sk_err(err, errlen, SK_E_COEFFICIENTS_MAKE_RECURRENCE, op);
      return -1;
    }
    if (a->dtype != x->dtype || a->extent[0] != x->extent[0] || a->agg) {
      sk_err(err, errlen, SK_E_COEFFICIENTS_VIEW_MUST, a->label, sk_dtypes[a->dtype].name,
             (long long)a->extent[0], x->label, sk_dtypes[x->dtype].name,
             (long long)x->extent[0]);
      return -1;
    }
  }
  const sk_backend *b = sk_sp_backend(err, errlen);
  if (!b) return -1;
  int64_t n = x->extent[0];
  if (n < 2) return 0;
  int64_t bs = BS_GPU;
  if (sk_sp_host(b)) {
    int64_t conc = b->concurrency ? b->concurrency() : 1;
    if (conc < 1) conc = 1;
    bs = (n + 4 * conc - 1) / (4 * conc);
    if (bs < BS_HOST_MIN) bs = BS_HOST_MIN;
  }
  int64_t nb = (n + bs - 1) / bs;
  sk_view agg, aggA;
  memset(&aggA, 0, sizeof aggA);
  if (sk_sp_view(&agg, "block folds", x->dtype, nb, x->space, 0, err, errlen) < 0)
    return -1;
  int rc = -1;
  if (a &&
      sk_sp_view(&aggA, "block coefficients", x->dtype, nb, x->space, 0, err, errlen) < 0)
    goto done;
  {
    sk_arg blk[] = {sk_arg_view("x", x),         sk_arg_view("agg", &agg),
                    sk_arg_i64("n", n),          sk_arg_i64("bs", bs),
                    sk_arg_view("a", a ? a : x), sk_arg_view("aggA", a ? &aggA : &agg)};
    sk_arg c[] = {sk_arg_view("agg", &agg), sk_arg_i64("nb", nb),
                  sk_arg_view("aggA", a ? &aggA : &agg)};
    int nblk = a ? 6 : 4, nc = a ? 3 : 2;
    if (sk_sp_range(a ? &k_red_aff : red[o], nb, blk, nblk, NULL, err, errlen) < 0 ||
        sk_sp_range(a ? &k_car_aff : car[o], 1, c, nc, NULL, err, errlen) < 0 ||
        sk_sp_range(a ? &k_app_aff : app[o], nb, blk, nblk, NULL, err, errlen) < 0)
      goto done;
  }
  rc = 0;
done:
  sk_view_release(&agg);
  sk_view_release(&aggA);
  return rc;
}

static const sk_kentry e_recur = {"graph.linear_recurrence", "x [, op, a]", SK_KRES_NONE,
                                  recurrence};

const sk_kentry *const sk_grecur_entries[] = {&e_recur, NULL};
const sk_kbody *const sk_grecur_bodies[] = {
  &k_red_sum, &k_car_sum, &k_app_sum, &k_red_prod, &k_car_prod, &k_app_prod,
  &k_red_min, &k_car_min, &k_app_min, &k_red_max,  &k_car_max,  &k_app_max,
  &k_red_aff, &k_car_aff, &k_app_aff, NULL};
