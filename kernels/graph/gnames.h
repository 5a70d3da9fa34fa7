/* gnames.h: vertex names (gnames.c): the table a reader fills with
 * names = true, and its output as a graph's 'names' property (a byte
 * array and int64 offsets in host memory); internal.
 */
#ifndef SK_GRAPH_GNAMES_H
#define SK_GRAPH_GNAMES_H

#include "graph.h"

typedef struct sk_names {
  int32_t *slot; /* ids, -1 empty */
  int64_t nslot, n, cap_ids;
  char *bytes, *keys; /* names as first spelled; keys (integers canonical) */
  int64_t nbytes, cap_bytes, nkeys, cap_keys;
  int64_t *off, *koff, *line; /* n + 1 offsets each; the line of each first use */
} sk_names;

/* the id of token 'tok' (a new one when unseen); -1 out of memory (or
 * past int32 ids), -2 when 'tok' spells an integer already named
 * otherwise ('*same' then that vertex) */
int64_t sk_names_intern(sk_names *t, const char *tok, int64_t lineno, int64_t *same);
/* the name of vertex 'id' ('*len' bytes, not NUL-terminated) */
const char *sk_names_name(const sk_names *t, int64_t id, int *len);
/* the names into output views "names" (uint8) and "name_offsets" (int64) */
int sk_names_out(sk_names *t, int space, sk_kvalue *out, char *err, size_t errlen);
void sk_names_free(sk_names *t);

extern const sk_kentry sk_gnames_gather;

#endif
