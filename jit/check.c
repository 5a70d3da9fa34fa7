/* check.c: the checks a kernel body passes before it is compiled, and
 * the rewrite of element updates of 'atomic' views.
 *
 * A light lexer over the body (literals and comments skipped, members
 * not taken for names) is enough: the checks look for dialect words and
 * captured view names, never parse C.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "codegen.h"
#include "strbuf.h"

/* Messages are core/errmsg.h's; in them '%s line %d' names the part
 * (body, prelude, init, join) and its line. */

/* -- checks ------------------------------------------------------------ */
static int is_ident(const char *s) {
  if (!s || !*s) return 0;
  if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_')) return 0;
  for (s++; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
          (*s >= '0' && *s <= '9') || *s == '_'))
      return 0;
  return 1;
}

static int ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '_';
}

/* skip a comment or literal starting at p[0]; returns the new position */
static size_t skip_lit(const char *p, size_t i, size_t n) {
  if (p[i] == '/' && i + 1 < n && p[i + 1] == '/') {
    while (i < n && p[i] != '\n') i++;
    return i;
  }
  if (p[i] == '/' && i + 1 < n && p[i + 1] == '*') {
    i += 2;
    while (i + 1 < n && !(p[i] == '*' && p[i + 1] == '/')) i++;
    return i + 2 < n ? i + 2 : n;
  }
  if (p[i] == '"' || p[i] == '\'') {
    char q = p[i++];
    while (i < n && p[i] != q) i += p[i] == '\\' ? 2 : 1;
    return i + 1 < n ? i + 1 : n;
  }
  return i;
}

/* Number of arguments in the parenthesised list starting at p[i] == '(';
 * *end receives the index after ')'. -1 if unbalanced. */
static int count_args(const char *p, size_t i, size_t n, size_t *end) {
  int depth = 0, commas = 0, nonblank = 0;
  while (i < n) {
    size_t j = skip_lit(p, i, n);
    if (j != i) {
      nonblank = 1;
      i = j;
      continue;
    }
    char c = p[i];
    if (c == '(' || c == '[' || c == '{') {
      if (depth > 0) nonblank = 1;
      depth++;
    } else if (c == ')' || c == ']' || c == '}') {
      if (--depth == 0) {
        *end = i + 1;
        return nonblank ? commas + 1 : 0;
      }
      nonblank = 1;
    } else if (c == ',' && depth == 1) {
      commas++;
    } else if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
      nonblank = 1;
    }
    i++;
  }
  return -1;
}

static int line_of(const char *p, size_t i) {
  int line = 1;
  for (size_t t = 0; t < i; t++) line += p[t] == '\n';
  return line;
}

/* Team constructs: words only a TeamPolicy body may use, loops whose
 * members run different iteration counts, and the collectives that must
 * not sit inside those loops (they would hang or be meaningless). */
static const char *const team_words[] = {"team",
                                         "TEAM_FOR",
                                         "VECTOR_FOR",
                                         "TEAM_VECTOR_FOR",
                                         "TEAM_REDUCE",
                                         "VECTOR_REDUCE",
                                         "TEAM_VECTOR_REDUCE",
                                         "TEAM_SCAN",
                                         "VECTOR_SCAN",
                                         "team_barrier",
                                         "SINGLE_TEAM",
                                         "SINGLE_THREAD",
                                         "TEAM_BROADCAST",
                                         "team_scratch",
                                         "thread_scratch",
                                         "TEAM_SORT",
                                         "TEAM_SORT_KV",
                                         NULL};
static const char *const loop_words[] = {
  "TEAM_FOR",           "VECTOR_FOR", "TEAM_VECTOR_FOR", "TEAM_REDUCE", "VECTOR_REDUCE",
  "TEAM_VECTOR_REDUCE", "TEAM_SCAN",  "VECTOR_SCAN",     "SINGLE_TEAM", NULL};
static const char *const collective_words[] = {
  "team_barrier",       "TEAM_BROADCAST", "TEAM_REDUCE",  "TEAM_SCAN",
  "TEAM_VECTOR_REDUCE", "TEAM_SORT",      "TEAM_SORT_KV", NULL};

static int in_list(const char *const *list, const char *p, size_t len) {
  for (int t = 0; list[t]; t++)
    if (strlen(list[t]) == len && memcmp(list[t], p, len) == 0) return t;
  return -1;
}

/* end of the statement or block that starts at p[i] */
static size_t stmt_end(const char *p, size_t i, size_t n) {
  while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r')) i++;
  int depth = 0;
  while (i < n) {
    size_t j = skip_lit(p, i, n);
    if (j != i) {
      i = j;
      continue;
    }
    char c = p[i++];
    if (c == '{' || c == '(' || c == '[') depth++;
    else if (c == '}' || c == ')' || c == ']') {
      if (--depth <= 0 && c == '}') return i;
    } else if (c == ';' && depth == 0) return i;
  }
  return n;
}

/* next identifier at or after *i (skipping literals and members) */
static int next_ident(const char *p, size_t n, size_t *i, size_t *b, size_t *len) {
  while (*i < n) {
    size_t j = skip_lit(p, *i, n);
    if (j != *i) {
      *i = j;
      continue;
    }
    if (ident_char(p[*i]) && !(p[*i] >= '0' && p[*i] <= '9') &&
        !(*i > 0 && (ident_char(p[*i - 1]) || p[*i - 1] == '.' ||
                     (p[*i - 1] == '>' && *i > 1 && p[*i - 2] == '-')))) {
      *b = *i;
      while (*i < n && ident_char(p[*i])) (*i)++;
      *len = *i - *b;
      return 1;
    }
    (*i)++;
  }
  return 0;
}

/* The constructs whose block runs on part of the team (or lane by lane):
 * 'return' inside one would leave the league rank on some members only,
 * skipping the joins and barriers the others then wait in. */
static const char *const nested_words[] = {"TEAM_FOR",
                                           "VECTOR_FOR",
                                           "TEAM_VECTOR_FOR",
                                           "TEAM_REDUCE",
                                           "VECTOR_REDUCE",
                                           "TEAM_VECTOR_REDUCE",
                                           "TEAM_SCAN",
                                           "VECTOR_SCAN",
                                           "SINGLE_TEAM",
                                           "SINGLE_THREAD",
                                           NULL};

/* If the identifier at p[b] (length len) is a construct of 'list' followed
 * by its argument list, the index after that list, and in *end the end of
 * the statement or block it governs; else 0. */
static size_t construct_block(const char *const *list, const char *p, size_t n, size_t b,
                              size_t len, size_t *end) {
  if (in_list(list, p + b, len) < 0) return 0;
  size_t k = b + len;
  while (k < n && (p[k] == ' ' || p[k] == '\t' || p[k] == '\n')) k++;
  if (k >= n || p[k] != '(') return 0;
  size_t after;
  if (count_args(p, k, n, &after) < 0) return 0;
  *end = stmt_end(p, after, n);
  return after;
}

/* 'return' inside a nested construct: refused, naming the innermost
 * construct around it (the one that starts last among those whose block
 * holds it). A plain 'return' ends the league rank on every member alike
 * and stays allowed. */
static int check_team_return(const sk_kspec *s, char *err, size_t errlen) {
  const char *p = s->body;
  size_t n = s->body_len, i = 0, b, len;
  while (next_ident(p, n, &i, &b, &len)) {
    if (len != 6 || memcmp(p + b, "return", 6) != 0) continue;
    size_t q = 0, cb, clen, inner = 0, inner_len = 0;
    int found = 0;
    while (q < b && next_ident(p, b, &q, &cb, &clen)) {
      size_t end;
      size_t after = construct_block(nested_words, p, n, cb, clen, &end);
      if (after && after <= b && b < end) {
        inner = cb;
        inner_len = clen;
        found = 1;
      }
    }
    if (!found) continue;
    int single = inner_len > 6 && memcmp(p + inner, "SINGLE", 6) == 0;
    if (single)
      return sk_err(err, errlen, SK_E_RETURN_INSIDE_SINGLE, (int)inner_len, p + inner,
                    line_of(p, b));
    return sk_err(err, errlen, SK_E_RETURN_INSIDE_LOOP, (int)inner_len, p + inner,
                  line_of(p, b));
  }
  return 0;
}

static int check_team_words(const sk_kspec *s, char *err, size_t errlen) {
  const char *p = s->body;
  size_t n = s->body_len, i = 0, b, len;
  while (next_ident(p, n, &i, &b, &len)) {
    int w = in_list(team_words, p + b, len);
    if (w >= 0 && s->policy_kind != SK_POL_TEAM) {
      sk_err(err, errlen, SK_E_TEAM_CONSTRUCT_BUT, team_words[w],
             s->policy_kind == SK_POL_RANGE ? "a RangePolicy" : "an MDRangePolicy",
             line_of(p, b));
      return -1;
    }
    if (s->policy_kind != SK_POL_TEAM || in_list(loop_words, p + b, len) < 0) continue;
    /* a nested loop: look for collectives inside its body */
    size_t k = i;
    while (k < n && (p[k] == ' ' || p[k] == '\t' || p[k] == '\n')) k++;
    if (k >= n || p[k] != '(') continue;
    size_t after;
    if (count_args(p, k, n, &after) < 0) continue;
    size_t end = stmt_end(p, after, n), q = after, cb, clen;
    while (q < end && next_ident(p, end, &q, &cb, &clen)) {
      int c = in_list(collective_words, p + cb, clen);
      if (c < 0) continue;
      sk_err(err, errlen, SK_E_INSIDE_BODY_LINE, collective_words[c],
             team_words[in_list(team_words, p + b, len)], line_of(p, cb));
      return -1;
    }
  }
  return s->policy_kind == SK_POL_TEAM ? check_team_return(s, err, errlen) : 0;
}

/* -- read-only views ----------------------------------------------------- */
static size_t skip_ws(const char *p, size_t i, size_t n) {
  while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r')) i++;
  return i;
}

/* 1 if the element use 'x(..)' that starts at p[b] and whose argument list
 * ends before p[end] is written: the target of '=' or a compound
 * assignment, the operand of '++' / '--', or the '&x(..)' operand of an
 * atomic_* call. A read through a pointer taken otherwise is not seen. */
static int element_written(const char *p, size_t n, size_t b, size_t end) {
  size_t q = skip_ws(p, end, n);
  if (q < n && p[q] == '=' && !(q + 1 < n && p[q + 1] == '=')) return 1;
  if (q + 1 < n && p[q + 1] == '=' && strchr("+-*/%&|^", p[q])) return 1;
  if (q + 2 < n && p[q + 2] == '=' && p[q] == p[q + 1] && (p[q] == '<' || p[q] == '>'))
    return 1;
  if (q + 1 < n && (p[q] == '+' || p[q] == '-') && p[q + 1] == p[q]) return 1;
  size_t a = b; /* before the name: ++, -- or an atomic's '&' */
  while (a > 0 && (p[a - 1] == ' ' || p[a - 1] == '\t' || p[a - 1] == '\n')) a--;
  if (a >= 2 && (p[a - 1] == '+' || p[a - 1] == '-') && p[a - 2] == p[a - 1]) return 1;
  if (a < 1 || p[a - 1] != '&' || (a >= 2 && p[a - 2] == '&')) return 0;
  a--;
  while (a > 0 && (p[a - 1] == ' ' || p[a - 1] == '\t' || p[a - 1] == '\n')) a--;
  if (a < 1 || p[a - 1] != '(') return 0;
  a--;
  while (a > 0 && (p[a - 1] == ' ' || p[a - 1] == '\t')) a--;
  size_t e = a;
  while (a > 0 && ident_char(p[a - 1])) a--;
  return e - a > 7 && memcmp(p + a, "atomic_", 7) == 0;
}

/* A view with the random_access trait is read-only (as a Kokkos view of
 * const data): a body that stores to one of its elements is refused. */
static int check_readonly(const sk_kspec *s, char *err, size_t errlen) {
  int any = 0;
  for (int c = 0; c < s->ncap; c++)
    any |= s->caps[c].kind == SK_CAP_VIEW && (s->caps[c].traits & SK_TRAIT_RANDOM);
  if (!any) return 0;
  const char *p = s->body;
  size_t n = s->body_len, i = 0, b, len;
  while (next_ident(p, n, &i, &b, &len)) {
    const sk_capture *v = NULL;
    for (int c = 0; c < s->ncap && !v; c++)
      if (s->caps[c].kind == SK_CAP_VIEW && (s->caps[c].traits & SK_TRAIT_RANDOM) &&
          strlen(s->caps[c].name) == len && memcmp(s->caps[c].name, p + b, len) == 0)
        v = &s->caps[c];
    if (!v) continue;
    size_t k = skip_ws(p, i, n), end;
    if (k >= n || p[k] != '(' || count_args(p, k, n, &end) < 0) continue;
    if (!element_written(p, n, b, end)) continue;
    sk_err(err, errlen, SK_E_VIEW_RANDOM_ACCESS, v->name, line_of(p, b));
    return -1;
  }
  return 0;
}

/* -- the shape of user text ------------------------------------------------ */
/* User text is pasted into the generated source: the body (and a custom
 * reducer's init and join) inside a block of the chunk function, the
 * prelude at file scope. Whatever it holds, it must stay where it is put,
 * as every C and C++ compiler behind the tiers reads it: balanced
 * brackets, every comment and literal closed, no preprocessor directive
 * (it could undefine the generator's macros or swallow its lines), no
 * line splice, trigraph or digraph (which a compiler turns into the
 * above), no raw string or digit separator (a device compiler may read C++) and no
 * name of the generator's own (sk__, SK__). This lexer is deliberately
 * stricter than C: it refuses, it never repairs. */
#define MAXNEST 256

int sk_jit_check_text(const char *part, const char *p, size_t n, char *err,
                      size_t errlen) {
  char open[MAXNEST];
  int open_line[MAXNEST], depth = 0, line = 1, bol = 1;
  for (size_t i = 0; i < n; i++) {
    char c = p[i];
    if (c == '\0') {
      sk_err(err, errlen, SK_E_NUL_BYTE_LINE, part, line);
      return -1;
    }
    /* phase 1 and 2 of translation happen everywhere, literals included */
    if (c == '?' && i + 2 < n && p[i + 1] == '?' && strchr("=/'()!<>-", p[i + 2])) {
      sk_err(err, errlen, SK_E_TRIGRAPH_LINE_NOT, p[i + 2], part, line);
      return -1;
    }
    if (c == '\\') {
      size_t k = i + 1;
      if (k < n && p[k] == '\r') k++;
      if (k == n || p[k] == '\n') {
        sk_err(err, errlen, SK_E_LINE_SPLICE_BACKSLASH, part, line, part);
        return -1;
      }
    }
    if (c == '\n') {
      line++;
      bol = 1;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') continue;
    int first = bol;
    bol = 0;
    if (c == '/' && i + 1 < n && p[i + 1] == '/') {
      while (i + 1 < n && p[i + 1] != '\n') {
        i++;
        if (p[i] == '\0') {
          sk_err(err, errlen, SK_E_NUL_BYTE_LINE, part, line);
          return -1;
        }
        /* the generator puts a newline after the text: a last '\\'
         * would join its next line to the comment (found by
         * fuzz_codegen) */
        if (p[i] == '\\' && (i + 1 == n || p[i + 1] == '\n' || p[i + 1] == '\r')) {
          sk_err(err, errlen, SK_E_LINE_SPLICE_BACKSLASH, part, line, part);
          return -1;
        }
        if (p[i] == '?' && i + 2 < n && p[i + 1] == '?' &&
            strchr("=/'()!<>-", p[i + 2])) {
          sk_err(err, errlen, SK_E_TRIGRAPH_LINE_NOT, p[i + 2], part, line);
          return -1;
        }
      }
      continue;
    }
    if (c == '/' && i + 1 < n && p[i + 1] == '*') {
      int from = line;
      for (i += 2;; i++) {
        if (i + 1 >= n) {
          sk_err(err, errlen, SK_E_COMMENT_OPENED_LINE, part, from);
          return -1;
        }
        if (p[i] == '\0') {
          sk_err(err, errlen, SK_E_NUL_BYTE_LINE, part, line);
          return -1;
        }
        if (p[i] == '?' && i + 2 < n && p[i + 1] == '?' &&
            strchr("=/'()!<>-", p[i + 2])) {
          sk_err(err, errlen, SK_E_TRIGRAPH_LINE_NOT, p[i + 2], part, line);
          return -1;
        }
        if (p[i] == '\\' && (p[i + 1] == '\n' || p[i + 1] == '\r')) {
          sk_err(err, errlen, SK_E_LINE_SPLICE_BACKSLASH, part, line, part);
          return -1;
        }
        if (p[i] == '\n') line++;
        if (p[i] == '*' && p[i + 1] == '/') break;
      }
      i++;         /* at the '/' */
      bol = first; /* a comment is one space: a directive may follow */
      continue;
    }
    if (c == '"' || c == '\'') {
      /* an identifier or number right before the quote: only the
       * encoding prefixes L, u, U, u8 (R"( raw strings and 1'000 digit
       * separators read differently as C++) */
      size_t a = i;
      while (a > 0 && ident_char(p[a - 1])) a--;
      size_t plen = i - a;
      if (plen && !((plen == 1 && strchr("LuU", p[a])) ||
                    (plen == 2 && p[a] == 'u' && p[a + 1] == '8'))) {
        sk_err(err, errlen, SK_E_QUOTE_RIGHT_AFTER, (int)(plen > 32 ? 32 : plen), p + a,
               part, line);
        return -1;
      }
      for (i++;; i++) {
        if (i >= n || p[i] == '\n') {
          sk_err(err, errlen, SK_E_LITERAL_LINE_NEVER, c == '"' ? "string" : "character",
                 part, line);
          return -1;
        }
        if (p[i] == '\0') {
          sk_err(err, errlen, SK_E_NUL_BYTE_LINE, part, line);
          return -1;
        }
        if (p[i] == '?' && i + 2 < n && p[i + 1] == '?' &&
            strchr("=/'()!<>-", p[i + 2])) {
          sk_err(err, errlen, SK_E_TRIGRAPH_LINE_NOT, p[i + 2], part, line);
          return -1;
        }
        if (p[i] == '\\') {
          if (i + 1 < n && (p[i + 1] == '\n' || p[i + 1] == '\r')) {
            sk_err(err, errlen, SK_E_LINE_SPLICE_BACKSLASH, part, line, part);
            return -1;
          }
          i++;
          if (i < n && p[i] == '\0') {
            sk_err(err, errlen, SK_E_NUL_BYTE_LINE, part, line);
            return -1;
          }
          continue;
        }
        if (p[i] == c) break;
      }
      continue;
    }
    if (c == '#' || (c == '%' && i + 1 < n && p[i + 1] == ':')) {
      if (first) {
        sk_err(err, errlen, SK_E_PREPROCESSOR_DIRECTIVE_LINE, part, line, part);
        return -1;
      }
      if (c == '%') {
        sk_err(err, errlen, SK_E_DIGRAPH_LINE_NOT, p + i, part, line);
        return -1;
      }
      continue;
    }
    if ((c == '<' && i + 1 < n && (p[i + 1] == '%' || p[i + 1] == ':')) ||
        (c == '%' && i + 1 < n && p[i + 1] == '>') ||
        (c == ':' && i + 1 < n && p[i + 1] == '>')) {
      sk_err(err, errlen, SK_E_DIGRAPH_LINE_NOT, p + i, part, line);
      return -1;
    }
    if (c == '\\') {
      sk_err(err, errlen, SK_E_STRAY_LINE, part, line);
      return -1;
    }
    if (ident_char(c)) {
      size_t b = i;
      while (i + 1 < n && ident_char(p[i + 1])) i++;
      size_t len = i + 1 - b;
      /* names, not the digits of a number (0x5k__ is not a name) */
      if (!(p[b] >= '0' && p[b] <= '9') && len >= 4 &&
          (memcmp(p + b, "sk__", 4) == 0 || memcmp(p + b, "SK__", 4) == 0)) {
        sk_err(err, errlen, SK_E_LINE_NAMES_STARTING, (int)(len > 64 ? 64 : len), p + b,
               part, line, p + b);
        return -1;
      }
      continue;
    }
    if (c == '(' || c == '[' || c == '{') {
      if (depth == MAXNEST) {
        sk_err(err, errlen, SK_E_NESTING_DEEPER_THAN, MAXNEST, part, line);
        return -1;
      }
      open[depth] = c;
      open_line[depth++] = line;
      continue;
    }
    if (c == ')' || c == ']' || c == '}') {
      char want = c == ')' ? '(' : c == ']' ? '[' : '{';
      if (depth == 0) {
        sk_err(err, errlen, SK_E_LINE_CLOSES_NOTHING, c, part, line, part);
        return -1;
      }
      if (open[depth - 1] != want) {
        sk_err(err, errlen, SK_E_LINE_CLOSES_OPENED, c, part, line, open[depth - 1],
               open_line[depth - 1]);
        return -1;
      }
      depth--;
    }
  }
  if (depth > 0) {
    sk_err(err, errlen, SK_E_OPENED_LINE_NEVER, open[depth - 1], part,
           open_line[depth - 1]);
    return -1;
  }
  return 0;
}

int sk_jit_check(const sk_kspec *s, char *err, size_t errlen) {
  /* the library's own text (kernels/) may use directives and is trusted */
  if (!s->library && sk_jit_check_text("body", s->body, s->body_len, err, errlen) < 0)
    return -1;
  if (!s->library && s->prelude &&
      sk_jit_check_text("prelude", s->prelude, strlen(s->prelude), err, errlen) < 0)
    return -1;
  for (int r = 0; r < s->nred; r++) {
    const sk_reducer *q = &s->reds[r];
    if (q->op != SK_RED_CUSTOM) continue;
    if ((q->init &&
         sk_jit_check_text("init", q->init, strlen(q->init), err, errlen) < 0) ||
        (q->join && sk_jit_check_text("join", q->join, strlen(q->join), err, errlen) < 0))
      return -1;
  }
  if (check_team_words(s, err, errlen) < 0) return -1;
  for (int c = 0; c < s->ncap; c++) {
    const char *n = s->caps[c].name;
    if (!is_ident(n)) {
      sk_err(err, errlen, SK_E_CAPTURE_NAME_NOT, n);
      return -1;
    }
    if (sk_codegen_reserved(n)) {
      sk_err(err, errlen, SK_E_CAPTURE_NAME_COLLIDES, n);
      return -1;
    }
    for (int d = 0; d < SK_MAXMD; d++)
      if (s->index[d] && strcmp(s->index[d], n) == 0) {
        sk_err(err, errlen, SK_E_CAPTURE_NAME_ALSO, n);
        return -1;
      }
  }
  int want = s->policy_kind == SK_POL_RANGE     ? 1
             : s->policy_kind == SK_POL_MDRANGE ? s->md_rank
                                                : 0;
  for (int d = 0; d < SK_MAXMD; d++) {
    const char *n = s->index[d];
    if (n && d >= want) {
      int given = d + 1;
      while (given < SK_MAXMD && s->index[given]) given++;
      sk_err(err, errlen, SK_E_OPTS_INDEX_NAMES, given, want);
      return -1;
    }
    for (int e = 0; n && e < d; e++)
      if (s->index[e] && strcmp(s->index[e], n) == 0) {
        sk_err(err, errlen, SK_E_OPTS_INDEX_NAMES_TWICE, n);
        return -1;
      }
    if (n && (!is_ident(n) || (sk_codegen_reserved(n) && strcmp(n, "i") &&
                               strcmp(n, "j") && strcmp(n, "k")))) {
      sk_err(err, errlen, SK_E_INDEX_NAME_NOT, n);
      return -1;
    }
  }
  /* every use 'x(' of a view must pass 'rank' indices */
  const char *p = s->body;
  size_t n = s->body_len;
  for (size_t i = 0; i < n;) {
    size_t j = skip_lit(p, i, n);
    if (j != i) {
      i = j;
      continue;
    }
    if (!ident_char(p[i]) || (i > 0 && (ident_char(p[i - 1]) || p[i - 1] == '.' ||
                                        (p[i - 1] == '>' && i > 1 && p[i - 2] == '-')))) {
      i++;
      continue;
    }
    size_t b = i;
    while (i < n && ident_char(p[i])) i++;
    size_t len = i - b;
    const sk_capture *v = NULL;
    for (int c = 0; c < s->ncap; c++)
      if (s->caps[c].kind == SK_CAP_VIEW && strlen(s->caps[c].name) == len &&
          memcmp(s->caps[c].name, p + b, len) == 0)
        v = &s->caps[c];
    if (!v) continue;
    size_t k = i;
    while (k < n && (p[k] == ' ' || p[k] == '\t' || p[k] == '\n')) k++;
    if (k >= n || p[k] != '(') continue;
    size_t end;
    int na = count_args(p, k, n, &end);
    if (na < 0) continue; /* the compiler reports unbalanced parentheses */
    if (na != v->rank) {
      sk_err(err, errlen, SK_E_VIEW_RANK_BODY, v->name, v->rank, na,
             na == 1 ? "ex" : "ices", line_of(p, b));
      return -1;
    }
  }
  return check_readonly(s, err, errlen);
}

/* -- the atomic trait ---------------------------------------------------- */
/* Rewrite element updates of views with the 'atomic' trait into atomics:
 * x(..) += e;  -> (atomic_fetch_add(&x(..), (e)));  likewise -=, &=, |=, ^=
 * (as a value: the old element); x(..) = e -> atomic_exchange;
 * x(..)++ -> the old value, ++x(..) -> the new one (fetch_add + 1).
 * Other forms (*=, /=, reads) are left as they are. No newline is added,
 * so body line numbers stay right. Returns NULL when nothing changes. */
static int atomic_view(const sk_kspec *s, const char *p, size_t len, int remote_only) {
  for (int c = 0; c < s->ncap; c++)
    if (s->caps[c].kind == SK_CAP_VIEW && (s->caps[c].traits & SK_TRAIT_ATOMIC) &&
        (!remote_only || sk_space_remote(s->caps[c].space)) &&
        strlen(s->caps[c].name) == len && memcmp(s->caps[c].name, p, len) == 0)
      return 1;
  return 0;
}

/* end of an expression: the next ';' or ',' or ')' at depth 0 */
static size_t expr_end(const char *p, size_t i, size_t n) {
  int depth = 0;
  while (i < n) {
    size_t j = skip_lit(p, i, n);
    if (j != i) {
      i = j;
      continue;
    }
    char c = p[i];
    if (c == '(' || c == '[' || c == '{') depth++;
    else if (c == ')' || c == ']' || c == '}') {
      if (depth == 0) return i;
      depth--;
    } else if ((c == ';' || c == ',') && depth == 0) return i;
    i++;
  }
  return n;
}

char *sk_body_atomic(const sk_kspec *s, int remote_only) {
  int any = 0;
  for (int c = 0; c < s->ncap; c++)
    any |= s->caps[c].kind == SK_CAP_VIEW && (s->caps[c].traits & SK_TRAIT_ATOMIC) &&
           (!remote_only || sk_space_remote(s->caps[c].space));
  if (!any) return NULL;
  const char *p = s->body;
  size_t n = s->body_len, i = 0, b, len, copied = 0;
  sk_buf o;
  sk_buf_init(&o);
  while (next_ident(p, n, &i, &b, &len)) {
    if (!atomic_view(s, p + b, len, remote_only)) continue;
    size_t k = skip_ws(p, i, n), end;
    if (k >= n || p[k] != '(' || count_args(p, k, n, &end) < 0) continue;
    /* prefix ++x(..) / --x(..) */
    size_t pb = b;
    while (pb > 0 && (p[pb - 1] == ' ' || p[pb - 1] == '\t')) pb--;
    /* (not a '++' already taken by the previous rewrite: "x(0)+++x(1)"
     * is x(0)++ + x(1), found by fuzz_codegen) */
    int pre = pb >= 2 && pb - 2 >= copied && (p[pb - 1] == '+' || p[pb - 1] == '-') &&
              p[pb - 2] == p[pb - 1];
    size_t q = skip_ws(p, end, n);
    const char *fn = NULL;
    size_t rhs_b = 0, rhs_e = 0, stop = end;
    const char *post = ""; /* prefix ++/--: the new value */
    if (pre) {
      fn = p[pb - 1] == '+' ? "atomic_fetch_add" : "atomic_fetch_sub";
      post = p[pb - 1] == '+' ? " + 1" : " - 1";
      b = pb - 2;
    } else if (q + 1 < n && (p[q] == '+' || p[q] == '-') && p[q + 1] == p[q]) {
      fn = p[q] == '+' ? "atomic_fetch_add" : "atomic_fetch_sub";
      stop = q + 2;
    } else if (q + 1 < n && p[q + 1] == '=' &&
               (p[q] == '+' || p[q] == '-' || p[q] == '&' || p[q] == '|' ||
                p[q] == '^')) {
      fn = p[q] == '+'   ? "atomic_fetch_add"
           : p[q] == '-' ? "atomic_fetch_sub"
           : p[q] == '&' ? "atomic_fetch_and"
           : p[q] == '|' ? "atomic_fetch_or"
                         : "atomic_fetch_xor";
      rhs_b = q + 2;
    } else if (q < n && p[q] == '=' && !(q + 1 < n && p[q + 1] == '=')) {
      fn = "atomic_exchange";
      rhs_b = q + 1;
    }
    if (!fn) continue;
    /* an assignment with no end (no ';' ',' or ')' after it) is left as
     * it is: the closing parentheses could land in a trailing // comment
     * (found by fuzz_codegen); the compiler reports the missing ';' */
    if (rhs_b && expr_end(p, rhs_b, n) >= n) continue;
    sk_buf_add(&o, p + copied, b - copied);
    /* a space each side of the user's text: its '??' must not meet our
     * '(' or ')' and make a trigraph (found by fuzz_codegen) */
    sk_buf_printf(&o, " (%s(&", fn);
    size_t vb = skip_ws(p, pre ? b + 2 : b, n);
    sk_buf_add(&o, p + vb, end - vb);
    if (rhs_b) {
      rhs_e = expr_end(p, rhs_b, n);
      sk_buf_puts(&o, ", (");
      sk_buf_add(&o, p + rhs_b, rhs_e - rhs_b);
      sk_buf_puts(&o, " )))");
      stop = rhs_e;
    } else {
      sk_buf_printf(&o, ", 1)%s)", post);
    }
    copied = stop;
    i = stop;
  }
  sk_buf_add(&o, p + copied, n - copied);
  return sk_buf_take(&o);
}

/* -- remote views ---------------------------------------------------------
 * A remote view's element is no lvalue: reads are the access macro (a
 * value: the local part loaded, the rest fetched), and every write form is
 * rewritten into a call of the capture's generated helpers (the generators):
 *   x(..) = e          sk__x_P(sk__x_at(..), (e))
 *   x(..) op= e        sk__x_U(sk__x_at(..), 'op', (e))   (op: + - * / % & | ^ < >)
 *   x(..)++, ++x(..)   sk__x_U(sk__x_at(..), '+', 1) (- 1 for the postfix)
 *   atomic_OP(&x(..), a [, b])   sk__x_F(sk__x_at(..), SK_ROP_OP, a) / sk__x_C
 * Runs after sk_body_atomic, so the atomic trait's rewrites become remote
 * atomics (MPI_Fetch_and_op). Line breaks are kept. */
static int remote_cap(const sk_kspec *s, const char *p, size_t len) {
  for (int c = 0; c < s->ncap; c++)
    if (s->caps[c].kind == SK_CAP_VIEW && sk_space_remote(s->caps[c].space) &&
        strlen(s->caps[c].name) == len && memcmp(s->caps[c].name, p, len) == 0)
      return c;
  return -1;
}

static const struct {
  const char *name;
  const char *op;
  int cas, vd;
} ratomics[] = {{"atomic_fetch_add", "SK_ROP_ADD", 0, 0},
                {"atomic_fetch_add_combined", "SK_ROP_ADD", 0, 0},
                {"atomic_fetch_sub", "SK_ROP_SUB", 0, 0},
                {"atomic_fetch_min", "SK_ROP_MIN", 0, 0},
                {"atomic_fetch_max", "SK_ROP_MAX", 0, 0},
                {"atomic_fetch_and", "SK_ROP_AND", 0, 0},
                {"atomic_fetch_or", "SK_ROP_OR", 0, 0},
                {"atomic_fetch_xor", "SK_ROP_XOR", 0, 0},
                {"atomic_exchange", "SK_ROP_XCHG", 0, 0},
                {"atomic_cas", "SK_ROP_CAS", 1, 0},
                {"atomic_add", "SK_ROP_ADD", 0, 1},
                {"atomic_sub", "SK_ROP_SUB", 0, 1},
                {"atomic_min", "SK_ROP_MIN", 0, 1},
                {"atomic_max", "SK_ROP_MAX", 0, 1},
                {"atomic_and", "SK_ROP_AND", 0, 1},
                {"atomic_or", "SK_ROP_OR", 0, 1},
                {"atomic_xor", "SK_ROP_XOR", 0, 1},
                {NULL, NULL, 0, 0}};

char *sk_body_remote(const sk_kspec *s, const char *p, size_t n) {
  int any = 0;
  for (int c = 0; c < s->ncap; c++)
    any |= s->caps[c].kind == SK_CAP_VIEW && sk_space_remote(s->caps[c].space);
  if (!any) return NULL;
  size_t i = 0, b, len, copied = 0;
  sk_buf o;
  sk_buf_init(&o);
  while (next_ident(p, n, &i, &b, &len)) {
    int c = remote_cap(s, p + b, len);
    if (c < 0) continue;
    const char *nm = s->caps[c].name;
    size_t k = skip_ws(p, i, n), end;
    if (k >= n || p[k] != '(' || count_args(p, k, n, &end) < 0) continue;
    /* the index list "(..)" is p[k, end) */
    size_t a = b;
    while (a > 0 && (p[a - 1] == ' ' || p[a - 1] == '\t' || p[a - 1] == '\n')) a--;
    /* atomic_OP ( &x(..) , rest ) */
    if (a >= 1 && p[a - 1] == '&' && !(a >= 2 && p[a - 2] == '&')) {
      size_t q = a - 1;
      while (q > 0 && (p[q - 1] == ' ' || p[q - 1] == '\t' || p[q - 1] == '\n')) q--;
      if (q < 1 || p[q - 1] != '(') continue;
      size_t paren = q - 1, fe = paren;
      while (fe > 0 && (p[fe - 1] == ' ' || p[fe - 1] == '\t')) fe--;
      size_t fb = fe;
      while (fb > 0 && ident_char(p[fb - 1])) fb--;
      if (fb < copied) continue;
      int at = -1;
      for (int t = 0; ratomics[t].name; t++)
        if (strlen(ratomics[t].name) == fe - fb &&
            memcmp(p + fb, ratomics[t].name, fe - fb) == 0)
          at = t;
      size_t call_end, comma = skip_ws(p, end, n);
      if (at < 0 || count_args(p, paren, n, &call_end) < 0 || comma >= n ||
          p[comma] != ',')
        continue;
      sk_buf_add(&o, p + copied, fb - copied);
      sk_buf_printf(&o, " (%ssk__%s_%s(sk__%s_at", ratomics[at].vd ? "(void)" : "", nm,
                    ratomics[at].cas ? "C" : "F", nm);
      sk_buf_add(&o, p + k, end - k);
      if (!ratomics[at].cas) sk_buf_printf(&o, ", %s", ratomics[at].op);
      sk_buf_puts(&o, ", ");
      sk_buf_add(&o, p + comma + 1, call_end - 1 - (comma + 1));
      sk_buf_puts(&o, " ))");
      copied = i = call_end;
      continue;
    }
    int pre = a >= 2 && a - 2 >= copied && (p[a - 1] == '+' || p[a - 1] == '-') &&
              p[a - 2] == p[a - 1];
    size_t q = skip_ws(p, end, n), rhs_b = 0, stop = end;
    char op = 0;
    const char *post = "";
    if (pre) {
      op = p[a - 1];
      b = a - 2;
    } else if (q + 1 < n && (p[q] == '+' || p[q] == '-') && p[q + 1] == p[q]) {
      op = p[q];
      post = p[q] == '+' ? " - 1" : " + 1";
      stop = q + 2;
    } else if (q + 2 < n && p[q + 2] == '=' && p[q] == p[q + 1] &&
               (p[q] == '<' || p[q] == '>')) {
      op = p[q];
      rhs_b = q + 3;
    } else if (q + 1 < n && p[q + 1] == '=' && strchr("+-*/%&|^", p[q])) {
      op = p[q];
      rhs_b = q + 2;
    } else if (q < n && p[q] == '=' && !(q + 1 < n && p[q + 1] == '=')) {
      op = '=';
      rhs_b = q + 1;
    }
    if (!op) continue;
    if (rhs_b && expr_end(p, rhs_b, n) >= n) continue;
    sk_buf_add(&o, p + copied, b - copied);
    if (op == '=') sk_buf_printf(&o, " (sk__%s_P(sk__%s_at", nm, nm);
    else sk_buf_printf(&o, " (sk__%s_U(sk__%s_at", nm, nm);
    sk_buf_add(&o, p + k, end - k);
    if (op != '=') sk_buf_printf(&o, ", '%c'", op);
    if (rhs_b) {
      size_t rhs_e = expr_end(p, rhs_b, n);
      sk_buf_puts(&o, ", (");
      sk_buf_add(&o, p + rhs_b, rhs_e - rhs_b);
      sk_buf_puts(&o, " )))");
      stop = rhs_e;
    } else {
      sk_buf_printf(&o, ", 1)%s)", post);
    }
    copied = i = stop;
  }
  sk_buf_add(&o, p + copied, n - copied);
  return sk_buf_take(&o);
}

/* -- loop polls ------------------------------------------------------------
 * Every loop written in a user's body polls the launch's stop word on its
 * back edge (dialect: SK__GO, see docs/hardening.md), so one iteration
 * that never ends can still be interrupted or abandoned:
 *   while (c)          while ( SK__GO() && (c ))        (do ... while too)
 *   for (a; b; c)      for (a; SK__GO() && (b ); c)     (an empty b: SK__GO())
 * The condition is evaluated before every iteration. On the host SK__GO
 * leaves the body (a jump to the launch's guard) or is 1; on a device it
 * is 0 once the stop word is set, which ends the loop. Loops of the
 * dialect's constructs and of preludes are not rewritten; neither are
 * goto loops. No newline is added, so body line numbers stay right. */
char *sk_body_polls(const char *p, size_t n) {
  size_t i = 0, b, len, copied = 0;
  sk_buf o;
  sk_buf_init(&o);
  int any = 0;
  while (next_ident(p, n, &i, &b, &len)) {
    int is_while = len == 5 && memcmp(p + b, "while", 5) == 0;
    int is_for = len == 3 && memcmp(p + b, "for", 3) == 0;
    if (!is_while && !is_for) continue;
    size_t k = skip_ws(p, i, n), end;
    if (k >= n || p[k] != '(' || count_args(p, k, n, &end) < 0) continue;
    /* the condition: [cb, ce) */
    size_t cb = k + 1, ce = end - 1;
    if (is_for) { /* between the first and the second ';' at depth 0 */
      size_t semi[2];
      int found = 0, depth = 0;
      for (size_t q = k + 1; q < end - 1 && found < 2;) {
        size_t j = skip_lit(p, q, n);
        if (j != q) {
          q = j;
          continue;
        }
        char c = p[q];
        if (c == '(' || c == '[' || c == '{') depth++;
        else if (c == ')' || c == ']' || c == '}') depth--;
        else if (c == ';' && depth == 0) semi[found++] = q;
        q++;
      }
      if (found < 2) continue; /* the compiler reports it */
      cb = semi[0] + 1;
      ce = semi[1];
    }
    int empty = skip_ws(p, cb, n) >= ce;
    sk_buf_add(&o, p + copied, cb - copied);
    if (empty) {
      sk_buf_puts(&o, " SK__GO() ");
    } else {
      sk_buf_puts(&o, " SK__GO() && (");
      sk_buf_add(&o, p + cb, ce - cb);
      sk_buf_puts(&o, " )");
    }
    copied = ce;
    i = ce;
    any = 1;
  }
  if (!any) {
    sk_buf_free(&o);
    return NULL;
  }
  sk_buf_add(&o, p + copied, n - copied);
  return sk_buf_take(&o);
}
