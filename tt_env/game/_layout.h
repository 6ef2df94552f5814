/* The observation layout as the extension modules read it from Python.

   Every module whose C code reads or writes an observation (the engine's tt_env.game._ccore,
   the batch's tt_env.vector._cbatch, the counting rule's tt_env.valuation._crule, the feature
   transform's tt_env.learned._cfeatures) publishes the names of the pieces as PIECES
   (tt_piece_names(), in the order of game/core/layout.h) and takes the layout as
   tt_env.encoding.observation.piece_starts(num_players, module.PIECES): the starts of the
   pieces in that order and the vector's size, which read_layout() checks (every piece inside
   the vector) into a tt_layout. */

#ifndef TT_GAME_PY_LAYOUT_H
#define TT_GAME_PY_LAYOUT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "game/core/layout.h"

#define TT_MAX_OBSERVATION 100000 /* the largest vector taken (8 players make 741 values) */

/* starts (a tuple of TT_PIECES ints, in the order of PIECES) and size, for `num_players`
   seats, into L; 0, or -1 with a TypeError or ValueError naming what is wrong. */
static inline int read_layout(PyObject *starts, Py_ssize_t size, int num_players, tt_layout *L) {
    if (!PyTuple_Check(starts) || PyTuple_GET_SIZE(starts) != TT_PIECES) {
        PyErr_Format(PyExc_TypeError,
                     "a layout's starts must be a tuple of %d ints (one per piece of PIECES), "
                     "not %.100s",
                     TT_PIECES, Py_TYPE(starts)->tp_name);
        return -1;
    }
    if (size < 1 || size > TT_MAX_OBSERVATION) {
        PyErr_Format(PyExc_ValueError, "observation_size must be 1..%d, not %zd",
                     TT_MAX_OBSERVATION, size);
        return -1;
    }
    for (int i = 0; i < TT_PIECES; i++) {
        const char *name = tt_piece_name((enum tt_piece)i);
        PyObject *item = PyTuple_GET_ITEM(starts, i);
        if (!PyLong_Check(item)) {
            PyErr_Format(PyExc_TypeError, "the start of the piece '%s' must be an int, not %.100s",
                         name, Py_TYPE(item)->tp_name);
            return -1;
        }
        long start = PyLong_AsLong(item);
        if (start == -1 && PyErr_Occurred()) return -1;
        int rows = tt_piece_per_seat((enum tt_piece)i) ? num_players : 1;
        long end = start + (long)tt_piece_width((enum tt_piece)i) * rows;
        if (start < 0 || end > size) {
            PyErr_Format(PyExc_ValueError,
                         "the piece '%s' (start %ld, %ld values) lies outside the observation's "
                         "%zd values",
                         name, start, end - start, size);
            return -1;
        }
        L->start[i] = (int)start;
    }
    L->size = (int)size;
    return 0;
}

/* The names of the pieces, in the order of tt_piece (a module's PIECES); NULL with an
   exception. */
static inline PyObject *tt_piece_names(void) {
    PyObject *names = PyTuple_New(TT_PIECES);
    for (int i = 0; names != NULL && i < TT_PIECES; i++) {
        PyObject *name = PyUnicode_FromString(tt_piece_name((enum tt_piece)i));
        if (name == NULL) {
            Py_CLEAR(names);
            break;
        }
        PyTuple_SET_ITEM(names, i, name);
    }
    return names;
}

#endif /* TT_GAME_PY_LAYOUT_H */
