/* The solver's Kernel object as the other extension modules see it (tt_env.game.melds._csolver).

   A module of a layer above (the valuation's rule, the features, the search agent) takes Kernel
   objects from Python and calls the solver's functions (solver.h, compiled into it too) on their
   configuration. tt_kernel_solver() checks that an object is such a Kernel, by the type that
   tt_env.game.melds._csolver itself exports, before it hands out the configuration: the layout
   below is the same in every module because they are built from this one header together. */

#ifndef TT_CSOLVER_H
#define TT_CSOLVER_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "solver.h"

typedef struct {
    PyObject_HEAD
    tt_solver s;      /* its configuration; s.tab points into `tables` */
    PyObject *tables; /* the Tables object that owns the suit tables and the memo */
    Py_buffer par;    /* the arrays of Python's that the kernel reads and writes */
    Py_buffer ws;     /* s.ws: the workspace (tt_workspace), an int64 array of TT_WS_SIZE */
    Py_buffer out53;
    Py_buffer dv53;
    Py_buffer cards;
    Py_buffer keys;
    uint8_t counts[53]; /* a copy of the hand being solved */
} tt_KernelObject;

#define TT_CSOLVER_MODULE "tt_env.game.melds._csolver"

/* The Kernel type, looked up once per module that includes this header; NULL with an
   exception set when the solver's module cannot be imported. */
static PyTypeObject *tt_kernel_type_cached = NULL;

static PyTypeObject *tt_kernel_type(void) {
    if (tt_kernel_type_cached == NULL) {
        PyObject *module = PyImport_ImportModule(TT_CSOLVER_MODULE);
        if (module == NULL) return NULL;
        PyObject *type = PyObject_GetAttrString(module, "Kernel");
        Py_DECREF(module);
        if (type == NULL) return NULL;
        if (!PyType_Check(type)) {
            Py_DECREF(type);
            PyErr_SetString(PyExc_TypeError, TT_CSOLVER_MODULE ".Kernel is not a type");
            return NULL;
        }
        tt_kernel_type_cached = (PyTypeObject *)type; /* kept for the process's life */
    }
    return tt_kernel_type_cached;
}

/* The Kernel object `o` (a new reference is not taken: the caller keeps `o`), or NULL with a
   TypeError naming `what` when `o` is not a solver Kernel. */
static inline tt_KernelObject *tt_kernel_of(PyObject *o, const char *what) {
    PyTypeObject *type = tt_kernel_type();
    if (type == NULL) return NULL;
    if (!PyObject_TypeCheck(o, type)) {
        PyErr_Format(PyExc_TypeError, "%s must be a solver Kernel (%s.Kernel), not %.100s", what,
                     TT_CSOLVER_MODULE, Py_TYPE(o)->tp_name);
        return NULL;
    }
    return (tt_KernelObject *)o;
}

#endif /* TT_CSOLVER_H */
