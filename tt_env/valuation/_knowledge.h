/* What a seat knows (valuation/knowledge.h), as the extension modules read its setting from
   Python: the observation's layout (game/_layout.h: the starts of the pieces in the order of
   PIECES and the vector's size, from tt_env.encoding.observation.piece_starts), the number of
   seats and the copies of each card kind in play. The counting rule's module
   (tt_env.valuation._crule) and the feature transform's (tt_env.learned._cfeatures) read it with
   tt_get_observer(), so that they check it alike. */

#ifndef TT_PY_KNOWLEDGE_H
#define TT_PY_KNOWLEDGE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "game/_layout.h"
#include "util/pyargs.h"
#include "valuation/knowledge.h"

/* starts and observation_size (the layout), num_players (1..TT_KNOW_MAX_SEATS) and deck (53
   integers 0..TT_KNOW_MAX_COUNT, at least one deck: deck[0] >= 1) into O; 0 with a TypeError or
   ValueError naming the argument that is wrong. */
static inline int tt_get_observer(PyObject *starts, PyObject *observation_size,
                                  PyObject *num_players, PyObject *deck, tt_observer *O) {
    int64_t size;
    memset(O, 0, sizeof *O);
    if (!tt_get_int(observation_size, 1, TT_MAX_OBSERVATION, &size, "observation_size") ||
        !tt_get_int(num_players, 1, TT_KNOW_MAX_SEATS, &O->num_players, "num_players") ||
        read_layout(starts, (Py_ssize_t)size, (int)O->num_players, &O->layout) < 0 ||
        !tt_get_ints(deck, TT_KNOW_KINDS, 0, TT_KNOW_MAX_COUNT, O->deck, "deck"))
        return 0;
    if (O->deck[0] < 1) {
        PyErr_SetString(PyExc_ValueError,
                        "deck[0] must be at least 1: one deck or more is in play");
        return 0;
    }
    return 1;
}

#endif /* TT_PY_KNOWLEDGE_H */
