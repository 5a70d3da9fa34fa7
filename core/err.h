/* core/err.h: every message by id. The ids and texts live in one X-macro
 * table, core/errmsg.h (LuaJIT's lj_errmsg.h is the model); C raises a
 * message with sk_err(err, errlen, SK_E_<ID>, args...), which formats the
 * id's text into the caller's buffer, records the id as the thread's last
 * error and returns -1, so 'return sk_err(err, errlen, SK_E_NOMEM);' is
 * the whole error path.
 *
 * Format safety: every id also names its text as a constant
 * (sk_errfmt_SK_E_<ID>), and the sk_err macro hands it with the arguments
 * to an snprintf that is never run, so -Wformat checks each call against
 * its id's text. Wrappers that take an id (vm/'s raisers, the readers'
 * line-numbered failures) check theirs with SK_ERRCHK the same way.
 *
 * The id crosses layers with the text: sk_err_last() is the id of the
 * last message this thread raised, so the Lua layer and exec/ compare ids
 * where they would otherwise compare texts. */
#ifndef SK_ERR_H
#define SK_ERR_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

enum {
#define SK_ERRDEF(id, text) SK_E_##id,
#include "core/errmsg.h"
#undef SK_ERRDEF
  SK_E__COUNT
};

/* each id's text as a named constant, for -Wformat (unused ones cost
 * nothing: static consts of a header are dropped and not warned about) */
#define SK_ERRDEF(id, text) static const char sk_errfmt_SK_E_##id[] = text;
#include "core/errmsg.h"
#undef SK_ERRDEF

/* Format message 'id' with the arguments into err[0..n) (nothing when err
 * is NULL or n is 0), record it as the thread's last error; returns -1. */
int sk_err_(char *err, size_t n, int id, ...);
int sk_verr(char *err, size_t n, int id, va_list ap);

/* a checked call: -Wformat sees the id's text with the arguments */
#define SK_ERRCHK(id, ...) \
  ((void)(0 ? snprintf(NULL, 0, sk_errfmt_##id, ##__VA_ARGS__) : 0))
#define sk_err(err, n, id, ...) \
  (SK_ERRCHK(id, ##__VA_ARGS__), sk_err_((err), (n), id, ##__VA_ARGS__))

/* the format text of 'id' ("" for an unknown id), its name without the
 * SK_E_ prefix ("NOMEM"), the id of a name (-1 for none) */
const char *sk_err_text(int id);
const char *sk_err_name(int id);
int sk_err_id(const char *name);

/* the id of the last message this thread raised (SK_E_NONE for none); an
 * id whose text is slots only (SK_E_MSG "%s", SK_E_PREFIX "%s: %s": a
 * message passed on) keeps the id of the message it passes on */
int sk_err_last(void);
void sk_err_clear(void);

#endif
