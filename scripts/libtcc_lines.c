/* libtcc_lines.c: an addition to libtcc, compiled into .deps/tcc/libtcc.a
 * by scripts/build-libtcc.sh with libtcc's own headers (not by speck's
 * Makefile): the line of a code address in a state compiled with -g.
 *
 * libtcc 0.9.27 keeps its debug information (stabs) in the state but has
 * no public call that reads it back; this walks the entries as its own
 * run-time backtrace does (tccrun.c, rt_printline) and answers the line
 * that holds 'pc' when the file of that line (set by '#line N "file"') is
 * 'file'. jit/tcc.c uses it to name the body line of a fault.
 */
#include "tcc.h"
/* the members themselves, not tcc.h's shorthands for the current state's */
#undef stab_section
#undef symtab_section

int sk_tcc_stab_line(TCCState *s1, unsigned long long pc, const char *file);

int sk_tcc_stab_line(TCCState *s1, unsigned long long pc, const char *file) {
  Section *st = s1->stab_section, *sy = s1->symtab_section;
  if (!st || !st->link || !sy || !sy->link) return 0;
  /* the function holding pc, from the symbol table (relocated values; the
   * stabs' own function addresses are 32-bit and not all relocated) */
  const char *fname = NULL;
  addr_t fstart = 0;
  for (ElfW(Sym) *e = (ElfW(Sym) *)sy->data + 1;
       e < (ElfW(Sym) *)(sy->data + sy->data_offset); e++) {
    if (ELFW(ST_TYPE)(e->st_info) != STT_FUNC) continue;
    if (pc >= e->st_value && pc < e->st_value + e->st_size) {
      fname = (const char *)sy->link->data + e->st_name;
      fstart = e->st_value;
      break;
    }
  }
  if (!fname) return 0;
  addr_t off = pc - fstart;
  size_t flen = strlen(fname);
  Stab_Sym *sym = (Stab_Sym *)st->data, *end = (Stab_Sym *)(st->data + st->data_offset);
  const char *str = (const char *)st->link->data;
  const char *cur = "", *line_file = NULL;
  int in_func = 0, line = 0;
  for (++sym; sym < end; ++sym) {
    const char *name = sym->n_strx ? str + sym->n_strx : "";
    switch (sym->n_type) {
    case N_SO:
    case N_SOL:
      cur = name;
      break;
    case N_FUN:
      if (in_func) goto done; /* the function's end, or the next one */
      in_func = strncmp(name, fname, flen) == 0 && name[flen] == ':';
      break;
    case N_SLINE:
      if (!in_func) break;
      if (sym->n_value > off) goto done;
      line = sym->n_desc;
      line_file = cur;
      break;
    default:
      break;
    }
  }
done:
  return line_file && strcmp(line_file, file) == 0 ? line : 0;
}
