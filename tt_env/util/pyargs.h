/* The argument checks of the extension modules (tt_env.game.melds._csolver,
   tt_env.valuation._crule, tt_env.agents._csearch, tt_env.learned._cfeatures).

   Nothing from Python reaches a compiled kernel unchecked: every binding reads its arrays
   through these functions (the buffer protocol, so no numpy at build time) and its numbers
   through the integer readers, and each failure raises an exception that names the argument:
   TypeError for what is not of the type asked (not an array, a wrong element type, read-only
   where it is written into, not an integer), ValueError for a wrong shape, a strided array or a
   value out of range. Header-only: each module compiles its own static copy. */

#ifndef TT_PYARGS_H
#define TT_PYARGS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------ arrays */

/* Whether a buffer's struct-module format is one item of a type among `codes` (with a byte
   order prefix only when it is this machine's). */
static int tt_format_is(const Py_buffer *view, const char *codes) {
    const char *f = view->format ? view->format : "B";
    const uint16_t probe = 1;
    const char native = *(const char *)&probe ? '<' : '>';
    if (*f == '@' || *f == '=' || *f == native) f++;
    return f[0] != '\0' && f[1] == '\0' && strchr(codes, f[0]) != NULL;
}

/* The struct-module codes of an element kind: 'i' signed and 'u' unsigned integers, 'f'
   floats, '?' bool. */
static const char *tt_kind_codes(char kind) {
    switch (kind) {
    case 'i': return "bhilqn";
    case 'u': return "BHILQN";
    case 'f': return "efd";
    case '?': return "?";
    default: return "";
    }
}

/* "int64", "uint8", "float32", "bool": one kind of `itemsize` bytes, into `name`. */
static void tt_kind_name(char kind, Py_ssize_t itemsize, char *name, size_t size) {
    const char *base = kind == 'i' ? "int" : kind == 'u' ? "uint" : kind == 'f' ? "float" : "";
    if (kind == '?')
        snprintf(name, size, "bool");
    else
        snprintf(name, size, "%s%d", base, (int)(8 * itemsize));
}

/* A shape as Python writes it, "(53,)", "(2, 53)"; -1 (any size) as n. */
static void tt_shape_text(int ndim, const Py_ssize_t *shape, char *text, size_t size) {
    size_t at = (size_t)snprintf(text, size, "(");
    for (int i = 0; i < ndim && at < size; i++) {
        const char *sep = i + 1 < ndim ? ", " : (ndim == 1 ? "," : "");
        if (shape[i] < 0)
            at += (size_t)snprintf(text + at, size - at, "n%s", sep);
        else
            at += (size_t)snprintf(text + at, size - at, "%zd%s", shape[i], sep);
    }
    if (at < size) snprintf(text + at, size - at, ")");
}

/* Get `obj`'s buffer into `view`: a C-contiguous array of items of one of the element `kinds`
   ("i", "u", "f", "?" or several, as "iu?") of `itemsize` bytes, with `ndim` dimensions of the
   given `shape` (-1: any size), writable if asked. 1 if so; else 0 with an exception naming
   `what` (and no buffer held): TypeError for what is not such an array or is read-only where
   written into, ValueError for a wrong shape or a strided array. */
static int tt_get_array(PyObject *obj, Py_buffer *view, const char *what, const char *kinds,
                        Py_ssize_t itemsize, int ndim, const Py_ssize_t *shape, int writable) {
    char types[64] = "", codes[32] = "";
    size_t nkinds = strlen(kinds);
    for (size_t i = 0; i < nkinds; i++) { /* "int8, uint8 or bool" */
        char name[16];
        tt_kind_name(kinds[i], itemsize, name, sizeof name);
        const char *sep = i == 0 ? "" : (i + 1 < nkinds ? ", " : " or ");
        size_t used = strlen(types);
        snprintf(types + used, sizeof types - used, "%s%s", sep, name);
        used = strlen(codes);
        snprintf(codes + used, sizeof codes - used, "%s", tt_kind_codes(kinds[i]));
    }
    if (PyObject_GetBuffer(obj, view, writable ? PyBUF_RECORDS : PyBUF_RECORDS_RO) < 0) {
        PyErr_Clear();
        if (writable && PyObject_GetBuffer(obj, view, PyBUF_RECORDS_RO) == 0) {
            PyBuffer_Release(view);
            PyErr_Format(PyExc_TypeError,
                         "%s must be a writable array of %s, not a read-only "
                         "one",
                         what, types);
        } else {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "%s must be a%s array of %s, not %.100s", what,
                         writable ? " writable" : "n", types, Py_TYPE(obj)->tp_name);
        }
        return 0;
    }
    int shape_ok = view->ndim == ndim;
    for (int i = 0; shape_ok && i < ndim; i++)
        shape_ok = shape[i] < 0 || view->shape[i] == shape[i];
    if (!tt_format_is(view, codes) || view->itemsize != itemsize) {
        PyErr_Format(PyExc_TypeError, "%s must hold %s (got format '%s', %zd bytes an item)", what,
                     types, view->format ? view->format : "B", view->itemsize);
    } else if (!shape_ok && ndim == 1 && view->ndim == 1) {
        PyErr_Format(PyExc_ValueError, "%s must hold %zd items, got %zd", what, shape[0],
                     view->shape[0]);
    } else if (!shape_ok) {
        char want[80], got[80];
        tt_shape_text(ndim, shape, want, sizeof want);
        tt_shape_text(view->ndim, view->shape, got, sizeof got);
        PyErr_Format(PyExc_ValueError, "%s must be an array of the shape %s, got %s", what, want,
                     got);
    } else if (!PyBuffer_IsContiguous(view, 'C')) {
        PyErr_Format(PyExc_ValueError, "%s must be a%s C-contiguous array, not a strided view",
                     what, writable ? " writable" : "");
    } else {
        return 1;
    }
    PyBuffer_Release(view);
    return 0;
}

/* tt_get_array() of a 1-D array of `length` items (-1: any). */
static inline int tt_get_vector(PyObject *obj, Py_buffer *view, const char *what, const char *kinds,
                                Py_ssize_t itemsize, Py_ssize_t length, int writable) {
    return tt_get_array(obj, view, what, kinds, itemsize, 1, &length, writable);
}

/* Every value of int64 array a[0..n) in lo..hi, or 0 with a ValueError naming `what`. */
static inline int tt_check_values(const int64_t *a, Py_ssize_t n, int64_t lo, int64_t hi,
                                  const char *what) {
    for (Py_ssize_t i = 0; i < n; i++) {
        if (a[i] < lo || a[i] > hi) {
            PyErr_Format(PyExc_ValueError, "%s must hold values %lld..%lld, got %lld at %zd", what,
                         (long long)lo, (long long)hi, (long long)a[i], i);
            return 0;
        }
    }
    return 1;
}

/* ------------------------------------------------------------------ numbers */

/* An integer (any object with __index__, as numpy's) in lo..hi into out, or 0 with a
   TypeError or ValueError naming `what`. */
static int tt_get_int(PyObject *obj, int64_t lo, int64_t hi, int64_t *out, const char *what) {
    PyObject *index = PyNumber_Index(obj);
    if (index == NULL) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s must be an integer, not %.100s", what,
                     Py_TYPE(obj)->tp_name);
        return 0;
    }
    int overflow;
    long long v = PyLong_AsLongLongAndOverflow(index, &overflow);
    Py_DECREF(index);
    if (overflow || v < lo || v > hi) {
        PyErr_Format(PyExc_ValueError, "%s must be %lld..%lld, got %R", what, (long long)lo,
                     (long long)hi, obj);
        return 0;
    }
    *out = v;
    return 1;
}

/* A sequence of `n` integers in lo..hi into out, or 0 with an exception naming `what`. */
static inline int tt_get_ints(PyObject *obj, Py_ssize_t n, int64_t lo, int64_t hi, int64_t *out,
                              const char *what) {
    char message[120];
    snprintf(message, sizeof message, "%s must be a sequence of %zd integers", what, n);
    PyObject *seq = PySequence_Fast(obj, message);
    if (seq == NULL) return 0;
    int ok = PySequence_Fast_GET_SIZE(seq) == n;
    if (!ok)
        PyErr_Format(PyExc_ValueError, "%s must hold %zd values, got %zd", what, n,
                     PySequence_Fast_GET_SIZE(seq));
    for (Py_ssize_t i = 0; ok && i < n; i++)
        ok = tt_get_int(PySequence_Fast_GET_ITEM(seq, i), lo, hi, &out[i], what);
    Py_DECREF(seq);
    return ok;
}

/* A seed as np.random.SeedSequence takes one, into entropy[0..*n): an integer or a sequence of
   at most `max` integers, each 0..2**64-1; else 0 with a TypeError or ValueError naming
   `what`. */
static inline int tt_get_entropy(PyObject *obj, uint64_t *entropy, Py_ssize_t max, Py_ssize_t *n,
                                 const char *what) {
    const char *must = "an integer 0..2**64-1 or a sequence of them";
    PyObject *seq = PyIndex_Check(obj) ? PyTuple_Pack(1, obj) : PySequence_Fast(obj, "");
    if (seq == NULL) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s must be %s, not %.100s", what, must,
                     Py_TYPE(obj)->tp_name);
        return 0;
    }
    Py_ssize_t count = PySequence_Fast_GET_SIZE(seq);
    int ok = count <= max;
    if (!ok)
        PyErr_Format(PyExc_ValueError, "%s must hold %zd integers at most, got %zd", what, max,
                     count);
    for (Py_ssize_t i = 0; ok && i < count; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
        PyObject *index = PyNumber_Index(item);
        if (index == NULL) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "%s must be %s, not %.100s", what, must,
                         Py_TYPE(item)->tp_name);
            ok = 0;
            break;
        }
        int overflow; /* above 2**63-1: read unsigned (an OverflowError above 2**64-1) */
        long long v = PyLong_AsLongLongAndOverflow(index, &overflow);
        entropy[i] = overflow > 0 ? PyLong_AsUnsignedLongLong(index) : (uint64_t)v;
        Py_DECREF(index);
        if (overflow < 0 || (overflow == 0 && v < 0) || PyErr_Occurred()) {
            PyErr_Clear();
            PyErr_Format(PyExc_ValueError, "%s must be %s, got %R", what, must, item);
            ok = 0;
        }
    }
    Py_DECREF(seq);
    *n = count;
    return ok;
}

/* A ValueError "<what> must be <must>, got <x>". */
static inline void tt_bad_number(const char *what, const char *must, double x) {
    PyObject *value = PyFloat_FromDouble(x);
    if (value == NULL) return;
    PyErr_Format(PyExc_ValueError, "%s must be %s, got %R", what, must, value);
    Py_DECREF(value);
}

#endif /* TT_PYARGS_H */
