#!/usr/bin/env python3
"""seeds.py: write the seed corpora of the fuzz harnesses (tests/fuzz/<name>/).

Run from the repository root: python3 tests/fuzz/seeds.py. Each seed is a
valid (or deliberately almost valid) input in the layout its harness
documents; the files are committed, this script says how they were made.
"""
import os
import struct

ROOT = os.path.dirname(os.path.abspath(__file__))

# -- fuzz_codegen -------------------------------------------------------------
FOR, REDUCE, SCAN = 0, 1, 2
RANGE, MDRANGE, TEAM = 0, 1, 2
F64, F32, I64, I32 = 0, 1, 2, 3
SUM, MAX, MINLOC, MINMAX, CUSTOM = 0, 3, 4, 6, 11
V0, V1, V2, V4, V8, V16, V100, AUTO = 0, 1, 2, 4, 6, 7, 11, 28


def codegen(pattern, kind, caps, body, md_rank=0, flags=0, reds=(),
            scan_dtype=F64, pol=None, names=None, index=(), label="k",
            prelude="", custom=()):
    """caps: (is_view, dtype, rank, layout, traits) tuples"""
    pol = pol or [0, V0, V0, V100, V4, V2, AUTO, V0, V0, V0, V0]
    out = bytes([pattern, kind, md_rank, flags, len(caps), len(reds), scan_dtype])
    out += bytes(pol)
    for c in caps:
        out += bytes(c)
    for r in reds:
        out += bytes(r)
    names = names or ["x", "y", "a", "b", "c", "d", "e", "f"][: len(caps)]
    strs = list(names) + list(index) + [""] * (6 - len(index)) + [label, prelude]
    for init, join in custom:
        strs += [init, join]
    return out + b"".join(s.encode() + b"\0" for s in strs) + body.encode()


SEEDS = {
    "axpy": codegen(FOR, RANGE, [(1, F64, 1, 0, 0), (1, F64, 1, 0, 0), (0, F64, 0, 0, 0)],
                    "y(i) = a * x(i) + y(i);", names=["x", "y", "a"]),
    "dot": codegen(REDUCE, RANGE, [(1, F64, 1, 0, 0), (1, F64, 1, 0, 0)],
                   "acc += x(i) * y(i);", reds=[(SUM, F64)]),
    "minloc": codegen(REDUCE, RANGE, [(1, F32, 1, 1, 0)],
                      "if (x(i) < acc.val) { acc.val = x(i); acc.loc = i; }",
                      reds=[(MINLOC, F32)]),
    "two_reducers": codegen(REDUCE, RANGE, [(1, I64, 1, 0, 0)],
                            "acc0 += x(i); if (x(i) > acc1) acc1 = x(i);",
                            reds=[(SUM, I64), (MAX, I64)]),
    "custom": codegen(REDUCE, RANGE, [(1, F64, 1, 0, 0)], "acc = acc > x(i) ? acc : x(i);",
                      reds=[(CUSTOM, F64)], custom=[("acc = -1e300;", "if (src > dst) dst = src;")]),
    "scan": codegen(SCAN, RANGE, [(1, I32, 1, 0, 0), (1, I32, 1, 0, 0)],
                    "if (final) y(i) = acc; acc += x(i);", scan_dtype=I32),
    "mdrange": codegen(FOR, MDRANGE, [(1, F64, 2, 0, 0)], "x(i, j) = i * 10 + j;", md_rank=2,
                       pol=[0, V0, V0, V16, V0, V0, AUTO, V0, V0, V0, V0]),
    "mdrange3_index": codegen(FOR, MDRANGE, [(1, F64, 3, 1, 0)], "x(r, c, z) = r + c + z;",
                              md_rank=3, index=["r", "c", "z"],
                              pol=[0, V2, V0, V8, V0, V0, AUTO, V0, V0, V0, V0]),
    "team": codegen(FOR, TEAM, [(1, F64, 2, 0, 0)],
                    "TEAM_FOR(j, 0, x.extent[1]) { x(team.league_rank, j) = j; }\nteam_barrier(team);",
                    pol=[0, V0, V0, V0, V8, V1, AUTO, V0, V0, V0, V0]),
    "team_reduce": codegen(REDUCE, TEAM, [(1, F64, 2, 0, 0)],
                           "double s = 0;\nTEAM_REDUCE(sum, j, 0, x.extent[1], s) { s += x(team.league_rank, j); }\n"
                           "SINGLE_TEAM(team) { acc += s; }", reds=[(SUM, F64)],
                           pol=[0, V0, V0, V0, V8, V1, AUTO, V0, V0, V0, V0]),
    "scratch": codegen(FOR, TEAM, [(1, F64, 1, 0, 0)],
                       "double *s = (double *)team_scratch(team, 0, 64);\n"
                       "SINGLE_TEAM(team) { s[0] = 1; }\nteam_barrier(team);\nx(team.league_rank) = s[0];",
                       pol=[0, V0, V0, V0, V8, V1, AUTO, V100, V0, V0, V0]),
    "atomic": codegen(FOR, RANGE, [(1, I64, 1, 0, 1), (1, I64, 1, 0, 0)],
                      "x(y(i) % 4) += 1; x(0)++; ++x(1); x(2) = i;"),
    "readonly": codegen(FOR, RANGE, [(1, F64, 1, 0, 2), (1, F64, 1, 0, 0)],
                        "y(i) = x(i) * 2;"),
    "prelude": codegen(FOR, RANGE, [(1, F64, 1, 0, 0)], "x(i) = sq(i);",
                       prelude="SPECK_FN double sq(double v) { return v * v; }"),
    "bounds": codegen(FOR, RANGE, [(1, F64, 2, 1, 0)], "x(i, 0) = 1;", flags=1),
    "cuda_for": codegen(FOR, RANGE, [(1, F64, 1, 1, 0), (1, F64, 1, 1, 0)],
                        "y(i) = 2 * x(i);", flags=2),
    "cuda_reduce": codegen(REDUCE, RANGE, [(1, F64, 1, 1, 0)], "acc += x(i);",
                           flags=2, reds=[(SUM, F64)]),
    "cuda_team": codegen(FOR, TEAM, [(1, F32, 2, 1, 0)],
                         "TEAM_VECTOR_FOR(j, 0, x.extent[1]) { x(team.league_rank, j) = 0; }",
                         flags=2, pol=[0, V0, V0, V0, V8, V2, V4, V0, V0, V0, V0]),
    "comments_strings": codegen(FOR, RANGE, [(1, F64, 1, 0, 0)],
                                "/* } */ x(i) = 1; // {\nconst char *s = \"}{\"; char c = '}'; (void)s; (void)c;"),
    "return": codegen(FOR, RANGE, [(1, F64, 1, 0, 0)], "if (i == 0) return; x(i) = 1;"),
    "multiline": codegen(FOR, RANGE, [(1, F64, 1, 0, 0)], "int q = 1;\n\nx(i) = q;\n"),
    "label_path": codegen(FOR, RANGE, [(1, F64, 1, 0, 0)], "x(i) = 1;", label="../../x */ evil"),
    "bad_close": codegen(FOR, RANGE, [(1, F64, 1, 0, 0)], "x(i) = 1; } void f() {"),
    "bad_directive": codegen(FOR, RANGE, [(1, F64, 1, 0, 0)], "x(i) = 1;\n#undef return\n"),
    "bad_splice": codegen(FOR, RANGE, [(1, F64, 1, 0, 0)], "x(i) = 1; // \\\n"),
}

# issue 30 (reliability): loops whose conditions get the back-edge poll
# (jit/check.c sk_body_polls), and bodies that fault when run
SEEDS.update({
    "loops_endless": codegen(FOR, RANGE, [(1, F64, 1, 0, 0)],
                             "while (1) {}\nfor (;;) { break; }\nint k = 0; do { k++; } while (k < 3);"),
    "loops_tricky": codegen(REDUCE, RANGE, [(1, I64, 1, 0, 0)],
                            "/* while (0) */ const char *w = \"for (;;)\"; (void)w;\n"
                            "for (int64_t p = 0, q = 1; p < 4, q < 8; p++, q *= 2) acc += x(p);\n"
                            "for (int64_t p = 0; p < (int64_t)sizeof(int[2]); p++) { while ((p & 1) && 0) {} }\n"
                            "int n = 0; while (n < 2) for (int j = 0; j < 2; j++) n++;",
                            reds=[(SUM, I64)]),
    "loops_team": codegen(FOR, TEAM, [(1, F64, 2, 0, 0)],
                          "for (int r = 0; r < 2; r++) { TEAM_FOR(j, 0, x.extent[1]) { x(team.league_rank, j) += r; } team_barrier(team); }",
                          pol=[0, V0, V0, V0, V8, V1, AUTO, V0, V0, V0, V0]),
    "loops_cuda": codegen(FOR, RANGE, [(1, F64, 1, 1, 0)],
                          "int k = 0; while (k < 10) k++; for (;;) { break; } x(i) = k;", flags=2),
    "fault_far": codegen(FOR, RANGE, [(1, F64, 1, 0, 0)], "x(i + 100000000000) = 1;"),
    "fault_div": codegen(FOR, RANGE, [(1, F64, 1, 0, 0), (0, I64, 0, 0, 0)],
                         "x(i) = (double)(7 / y);", names=["x", "y"]),
    "fault_stack": codegen(FOR, RANGE, [(1, F64, 1, 0, 0)],
                           "volatile double big[1 << 24]; big[0] = i; x(i) = big[0];"),
})

# -- fuzz_diskcache ------------------------------------------------------------
# layout: op byte, mode byte, kind byte, then the file's content
MAGIC = b"SPECKC01"


def fnv(data, seed):
    h = (0xcbf29ce484222325 ^ seed) & 0xFFFFFFFFFFFFFFFF
    for b in data:
        h ^= b
        h = (h * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


KEY = 0x0123456789abcdef


def entry(payload, key=KEY, magic=MAGIC, length=None, good_sum=True):
    s = fnv(payload, key) if good_sum else 0
    n = len(payload) if length is None else length
    return payload + magic + struct.pack("<QQQ", key, n, s)


DISK = {
    "valid": bytes([0, 0, 0]) + entry(b"\x7fELF payload"),
    "valid_empty": bytes([0, 0, 0]) + entry(b""),
    "bad_sum": bytes([0, 0, 0]) + entry(b"payload", good_sum=False),
    "other_key": bytes([0, 0, 0]) + entry(b"payload", key=KEY + 1),
    "bad_len": bytes([0, 0, 0]) + entry(b"payload", length=3),
    "truncated": bytes([0, 0, 0]) + entry(b"payload")[:-5],
    "no_trailer": bytes([0, 0, 0]) + b"\x7fELF\x02\x01\x01" + b"\0" * 40,
    "group_writable": bytes([0, 1, 0]) + entry(b"payload"),
    "foreign_owner": bytes([0, 8, 0]) + entry(b"payload"),
    "cubin_valid": bytes([4, 0, 0]) + entry(b"cubin bytes"),
    "ptx_check": bytes([9, 0, 0]) + entry(b".version 8.0"),
    "symlink": bytes([0, 0, 1]) + entry(b"payload"),
    "fifo": bytes([0, 0, 2]) + b"",
    "directory": bytes([0, 0, 3]) + b"",
    "read_check": bytes([1, 0, 0]) + entry(b"abc"),
    "evict": bytes([2, 0, 0]) + entry(b"abc" * 100),
}


# -- fuzz_npy ---------------------------------------------------------------------
def npy(descr, shape, data, fortran=False, version=(1, 0)):
    """a .npy file as NumPy writes it (header padded to 64 bytes)"""
    shp = "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"
    head = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (
        descr, "True" if fortran else "False", shp)
    pre = 10 if version[0] == 1 else 12
    total = (pre + len(head) + 1 + 63) // 64 * 64
    head = head + " " * (total - pre - len(head) - 1) + "\n"
    if version[0] == 1:
        size = struct.pack("<H", len(head))
    else:
        size = struct.pack("<I", len(head))
    return b"\x93NUMPY" + bytes(version) + size + head.encode("latin1") + data


NPY = {
    "f8_1d": npy("<f8", (4,), struct.pack("<4d", 1, 2.5, -3, 1e300)),
    "f4_2d": npy("<f4", (2, 3), struct.pack("<6f", *range(6))),
    "i2_3d_fortran": npy("<i2", (2, 2, 2), struct.pack("<8h", *range(-4, 4)), fortran=True),
    "i8_big_endian": npy(">i8", (3,), struct.pack(">3q", 1, -2, 3)),
    "u1_scalar": npy("|u1", (), b"\x07"),
    "empty": npy("<f8", (0,), b""),
    "empty_2d": npy("<i4", (3, 0), b""),
    "bool": npy("|b1", (4,), b"\x00\x01\x02\xff"),
    "u4_v2": npy("<u4", (2,), struct.pack("<2I", 5, 6), version=(2, 0)),
    "u8_v3": npy("<u8", (1,), struct.pack("<Q", 2 ** 63), version=(3, 0)),
    "i1": npy("|i1", (5,), bytes([0, 1, 127, 128, 255])),
    "f2_refused": npy("<f2", (2,), b"\0\0\0\0"),
    "structured_refused": b"\x93NUMPY\x01\x00" + struct.pack("<H", 54) +
        b"{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (1,), }\n"[:54],
    "truncated": npy("<f8", (100,), struct.pack("<3d", 1, 2, 3)),
    "huge_shape": npy("<f8", (1 << 40,), b""),
    "bad_magic": b"\x93NUMPZ\x01\x00" + b"\0" * 60,
    "long_shape": npy("<f8", (1, 1, 1, 1, 1, 1, 1, 1, 1), struct.pack("<d", 1)),
}


# -- fuzz_mm and fuzz_edges ----------------------------------------------------
MM = {
    "general_real": b"%%MatrixMarket matrix coordinate real general\n% a comment\n3 4 4\n"
                    b"1 1 1.5\n2 3 -2\n3 4 1e3\n3 1 0.25\n",
    "symmetric_integer": b"%%MatrixMarket matrix coordinate integer symmetric\n3 3 3\n"
                         b"1 1 4\n2 1 -1\n3 2 7\n",
    "skew": b"%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 1 3.5\n",
    "pattern": b"%%MatrixMarket matrix coordinate pattern general\n2 2 3\n1 1\n1 2\n2 2\n",
    "duplicates": b"%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1\n1 1 2\n2 2 3\n",
    "array": b"%%MatrixMarket matrix array real general\n2 2\n1\n0\n3\n4\n",
    "array_symmetric": b"%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n3\n",
    "empty_matrix": b"%%MatrixMarket matrix coordinate real general\n0 0 0\n",
    "crlf": b"%%MatrixMarket matrix coordinate real general\r\n1 1 1\r\n1 1 2\r\n",
    "truncated": b"%%MatrixMarket matrix coordinate real general\n3 3 5\n1 1 1\n",
    "huge_claim": b"%%MatrixMarket matrix coordinate real general\n2000000000 2000000000 100000000\n1 1 1\n",
    "huge_array": b"%%MatrixMarket matrix array real general\n100000 100000\n1\n",
    "complex": b"%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n",
    "bad_banner": b"%%MatrixMarkt matrix coordinate real general\n1 1 1\n1 1 1\n",
    "nan_inf": b"%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 nan\n2 2 -inf\n",
    # issue 30: duplicates beyond m*n (summed), a file cut short, bytes that are not text
    "duplicates_beyond": b"%%MatrixMarket matrix coordinate real general\n1 2 5\n"
                         b"1 1 1\n1 2 2\n1 1 3\n1 1 4\n1 2 5\n",
    "truncated_symmetric": b"%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n"
                           b"1 1 1\n2 1 2\n",
    "nul_byte": b"%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2\0 3\n",
    "binary": b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\xed\xc1\x01\x0d\x00\x00\x00",
}

EDGES = {
    "snap": b"# Directed graph\n# Nodes: 5 Edges: 4\n# FromNodeId\tToNodeId\n0\t1\n1\t2\n2\t3\n3\t4\n",
    "plain": b"0 1\n1 2\n2 0\n2 2\n",
    "weighted": b"0 1 0.5\n1 2 1.5\n2 0 -3\n",
    "duplicates": b"0 1\n1 0\n0 1\n",
    "comments": b"% matrix-market-like comment\n0 1 # trailing\n\n1 2\n",
    "isolated": b"# Nodes: 10\n0 1\n",
    "mixed_weights": b"0 1 1\n1 2\n",
    "big_id": b"0 2147483646\n",
    "negative": b"0 -1\n",
    "nodes_after_edge": b"0 1\n# Nodes: 5\n",
    "empty": b"",
    # issue 30: the header's promises (ids beyond '# Nodes:' are read, fewer
    # edges than 'Edges:' are not), malformed counts, bytes that are not text
    "ids_beyond_nodes": b"# Undirected graph\n# Nodes: 3\tEdges: 3\n0\t1\n1\t7\n7\t12\n",
    "truncated_edges": b"# Nodes: 5 Edges: 4\n0 1\n1 2\n",
    "nodes_malformed": b"# Nodes: 5x Edges: 2\n0 1\n1 2\n",
    "edges_malformed": b"# Nodes: 5 Edges: -2\n0 1\n1 2\n",
    "nul_byte": b"0 1\n1 2\0 3\n2 3\n",
    "binary": b"\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x02\x00\x00\x00",
}


def main():
    for name, seeds in (("fuzz_codegen", SEEDS), ("fuzz_diskcache", DISK), ("fuzz_npy", NPY),
                        ("fuzz_mm", MM), ("fuzz_edges", EDGES)):
        d = os.path.join(ROOT, name)
        os.makedirs(d, exist_ok=True)
        for k, v in seeds.items():
            with open(os.path.join(d, k), "wb") as f:
                f.write(v)


if __name__ == "__main__":
    main()
