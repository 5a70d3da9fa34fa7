"""npy_oracle.py: NumPy's side of tests/io_spec.lua (run with /usr/bin/python3).

  npy_oracle.py write DIR      NumPy writes every dtype, C and Fortran order,
                               several shapes, big-endian files and extremes
  npy_oracle.py check DIR      NumPy reads the files speck wrote (listed in
                               DIR/manifest.txt: name dtype order shape) and
                               compares them with the same formula

The values are a formula of the C-order linear index 'k' of an element,
the one tests/io_spec.lua computes too:
  signed integers  (k * 37) % 200 - 100      unsigned  (k * 37) % 250
  floats           k * 0.25 - 7.5            bool      k % 3 == 1
Prints one line per problem and 'OK <n>' at the end when there is none.
"""
import os
import sys

import numpy as np

DTYPES = {
    "float64": "<f8", "float32": "<f4", "int64": "<i8", "int32": "<i4",
    "int16": "<i2", "int8": "|i1", "uint64": "<u8", "uint32": "<u4",
    "uint8": "|u1", "bool": "|b1",
}
SHAPES = [(3, 4, 5), (7,), (), (0, 3), (2, 1, 3, 2)]


def formula(dtype, shape):
    k = np.arange(int(np.prod(shape, dtype=np.int64)), dtype=np.int64)
    kind = np.dtype(DTYPES[dtype]).kind
    if kind == "f":
        v = k * 0.25 - 7.5
    elif kind == "i":
        v = (k * 37) % 200 - 100
    elif kind == "u":
        v = (k * 37) % 250
    else:
        v = k % 3 == 1
    return v.astype(DTYPES[dtype]).reshape(shape)


def shape_name(shape):
    return "x".join(str(n) for n in shape) if shape else "scalar"


def write(d):
    for dtype in DTYPES:
        for shape in SHAPES:
            a = formula(dtype, shape)
            np.save(os.path.join(d, "%s_C_%s.npy" % (dtype, shape_name(shape))),
                    np.array(a, order="C"))
            f = np.array(a, order="F")   # (as*array would make a 0-d array 1-d)
            np.save(os.path.join(d, "%s_F_%s.npy" % (dtype, shape_name(shape))), f)
    # big-endian data
    for dtype in ("float64", "int32", "int16", "uint32"):
        a = formula(dtype, (3, 4)).astype(">" + DTYPES[dtype][1:])
        np.save(os.path.join(d, "be_%s.npy" % dtype), a)
    # extremes
    np.save(os.path.join(d, "ext_int64.npy"),
            np.array([-2**63, 2**63 - 1, 0, -1], dtype="<i8"))
    np.save(os.path.join(d, "ext_uint64.npy"),
            np.array([0, 2**64 - 1, 2**63], dtype="<u8"))
    np.save(os.path.join(d, "ext_float64.npy"),
            np.array([np.inf, -np.inf, np.nan, -0.0, 5e-324, 1.7976931348623157e308]))
    np.save(os.path.join(d, "ext_bool.npy"), np.array([True, False, True]))
    # dtypes speck has none for
    np.save(os.path.join(d, "bad_complex.npy"), np.zeros(3, dtype=np.complex128))
    np.save(os.path.join(d, "bad_uint16.npy"), np.zeros(3, dtype=np.uint16))
    np.save(os.path.join(d, "bad_float16.npy"), np.zeros(3, dtype=np.float16))
    np.save(os.path.join(d, "bad_struct.npy"),
            np.zeros(3, dtype=[("a", "<f8"), ("b", "<i4")]))
    np.save(os.path.join(d, "bad_str.npy"), np.array(["ab", "cd"]))
    np.save(os.path.join(d, "rank9.npy"), np.zeros((1,) * 9))
    # the format versions NumPy writes when asked
    a = formula("float64", (2, 3))
    for version in ((2, 0), (3, 0)):
        with open(os.path.join(d, "v%d.npy" % version[0]), "wb") as f:
            np.lib.format.write_array(f, a, version=version)
    print("OK written")


def check(d):
    problems = 0
    n = 0
    with open(os.path.join(d, "manifest.txt")) as m:
        for line in m:
            name, dtype, order, shape = line.split()
            shape = tuple(int(x) for x in shape.split("x")) if shape != "scalar" else ()
            path = os.path.join(d, name)
            with open(path, "rb") as f:
                version = np.lib.format.read_magic(f)
                read = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                        else np.lib.format.read_array_header_2_0)
                hdr = read(f)
            a = np.load(path)
            want = formula(dtype, shape)
            fortran = order == "F" and len(shape) > 1
            if a.dtype != np.dtype(DTYPES[dtype]):
                print("%s: dtype %s, expected %s" % (name, a.dtype, DTYPES[dtype]))
                problems += 1
            elif a.shape != shape:
                print("%s: shape %s, expected %s" % (name, a.shape, shape))
                problems += 1
            elif hdr[1] != fortran:
                print("%s: fortran_order %s, expected %s" % (name, hdr[1], fortran))
                problems += 1
            elif not np.array_equal(a, want):
                print("%s: values differ: %r vs %r" % (name, a.ravel()[:8], want.ravel()[:8]))
                problems += 1
            elif os.path.getsize(path) % 64 != (a.nbytes % 64):
                print("%s: the data do not start at a multiple of 64" % name)
                problems += 1
            n += 1
    if problems == 0:
        print("OK %d" % n)


if __name__ == "__main__":
    {"write": write, "check": check}[sys.argv[1]](sys.argv[2])
