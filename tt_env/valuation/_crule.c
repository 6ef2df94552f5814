/* tt_env.valuation._crule: what a seat knows (knowledge.h) and the expected-penalty rule (the
   play of `counting`, rule.h), compiled.

   Both are built on the observation's layout as tt_env.encoding.observation.piece_starts(
   num_players, PIECES) gives it (the starts of the pieces in the order of PIECES, and the
   vector's size) and the copies of each card kind in play (`deck`, 53 integers).

   Observer(starts, observation_size, *, num_players, deck) decodes observations:
   Observer.see(observation, out) writes what the seat knows into `out` (int64, `size` values:
   hand, discard_below, on_table, unseen, then `known` (num_players rows of 53), then
   top_discard, drawn_upcard, wild_rank, draw_phase, discard_phase, final_turn) and says whether
   it could (False: a count is not a whole number of copies 0..255); tt_env.valuation.values
   (Valuation.see) reads it.

   Rule(kernels, starts, observation_size, *, num_players, deck, discard_drawn_upcard,
   lookahead, feed_cost, wild_feed_cost, candidates, margin) holds the rule's parameters and the
   solver Kernels of wild ranks 1..13 (tt_env.game.melds._csolver); tt_env.valuation.heuristics
   builds it (CompiledExpectedPenalty). Rule.decide(observation, mask) is the rule's action for
   the seat whose observation and action mask these are, -1 when the solver cannot certify a
   value it needs (the Python rule then decides); afterwards `shortlist`, `take` and `now` say
   what it weighed.

   Nothing reaches the C code unchecked: the arrays through the buffer protocol (element type,
   length, C order; no numpy at build time), every piece of the layout inside the observation
   (game/_layout.h), and every count read from an observation (a whole number of cards,
   0..255). A bad argument raises TypeError or ValueError naming it. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "game/_layout.h"
#include "game/melds/_csolver.h"
#include "util/pyargs.h"
#include "valuation/_crule.h"
#include "valuation/_knowledge.h"
#include "valuation/knowledge.h"
#include "valuation/rule.h"

/* Decode `obs` into `seen`: 0 with a ValueError naming the first count that is not one. */
static int see_checked(const tt_observer *O, const float *obs, tt_seen *seen) {
    tt_reading reading = tt_see(O, obs, seen);
    if (reading.ok) return 1;
    char what[80];
    snprintf(what, sizeof what, "observation[%lld] (the piece '%s')", (long long)reading.at,
             tt_piece_name(reading.piece));
    tt_bad_number(what, "a count of cards 0..255", obs[reading.at]);
    return 0;
}

/* ------------------------------------------------------------------ Observer */

typedef struct {
    PyObject_HEAD
    tt_observer observer;
    Py_ssize_t size; /* the values see() writes */
} ObserverObject;

static PyObject *Observer_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    static char *names[] = {"starts", "observation_size", "num_players", "deck", NULL};
    PyObject *starts, *size, *players, *deck;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO$OO:Observer", names, &starts, &size, &players,
                                     &deck))
        return NULL;
    ObserverObject *self = (ObserverObject *)type->tp_alloc(type, 0);
    if (self == NULL) return NULL;
    if (!tt_get_observer(starts, size, players, deck, &self->observer)) {
        Py_DECREF(self);
        return NULL;
    }
    self->size = (Py_ssize_t)(TT_KNOW_KINDS * (4 + self->observer.num_players) + 6);
    return (PyObject *)self;
}

/* see(observation, out): what the seat knows into out; False when a count is not one. */
static PyObject *Observer_see(ObserverObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "see() takes 2 arguments (observation, out), %zd given",
                     nargs);
        return NULL;
    }
    Py_buffer obs, out;
    if (!tt_get_vector(args[0], &obs, "observation", "f", 4, self->observer.layout.size, 0))
        return NULL;
    if (!tt_get_vector(args[1], &out, "out", "i", 8, self->size, 1)) {
        PyBuffer_Release(&obs);
        return NULL;
    }
    tt_seen seen;
    tt_reading reading = tt_see(&self->observer, obs.buf, &seen);
    if (reading.ok) {
        int64_t *o = out.buf;
        const int64_t n = self->observer.num_players;
        for (int k = 0; k < TT_KNOW_KINDS; k++) {
            o[k] = seen.hand[k];
            o[TT_KNOW_KINDS + k] = seen.discard_below[k];
            o[2 * TT_KNOW_KINDS + k] = seen.on_table[k];
            o[3 * TT_KNOW_KINDS + k] = seen.unseen[k];
        }
        o += 4 * TT_KNOW_KINDS;
        for (int64_t s = 0; s < n; s++, o += TT_KNOW_KINDS)
            memcpy(o, seen.known[s], sizeof seen.known[s]);
        o[0] = seen.top_discard;
        o[1] = seen.drawn_upcard;
        o[2] = seen.wild + 1;
        o[3] = seen.draw_phase;
        o[4] = seen.discard_phase;
        o[5] = seen.final_turn;
    }
    PyBuffer_Release(&obs);
    PyBuffer_Release(&out);
    return PyBool_FromLong(reading.ok);
}

static PyObject *Observer_get_size(ObserverObject *self, void *Py_UNUSED(closure)) {
    return PyLong_FromSsize_t(self->size);
}

static PyMethodDef Observer_methods[] = {
    {"see", (PyCFunction)(void (*)(void))Observer_see, METH_FASTCALL,
     "see(observation, out) -> bool: what the seat whose observation (float32) this is knows, "
     "into out (int64, size values; see the module); False when a count in it is not a whole "
     "number of copies 0..255 (out then holds nothing of use)."},
    {NULL},
};

static PyGetSetDef Observer_getset[] = {
    {"size", (getter)Observer_get_size, NULL, "the values see() writes", NULL},
    {NULL},
};

static PyTypeObject ObserverType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tt_env.valuation._crule.Observer",
    .tp_basicsize = sizeof(ObserverObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "What a seat knows from its observation, for one layout and deck (see the module).",
    .tp_new = Observer_new,
    .tp_methods = Observer_methods,
    .tp_getset = Observer_getset,
};

/* ------------------------------------------------------------------ Rule */

typedef struct {
    PyObject_HEAD
    PyObject *kernels[13]; /* the solver Kernels of wild ranks 1..13 (references held) */
    tt_rule rule;
    tt_observer observer;
    tt_decision last; /* what the last decision weighed */
} RuleObject;

static void Rule_dealloc(RuleObject *self) {
    for (int i = 0; i < 13; i++) Py_XDECREF(self->kernels[i]);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* kernels: 13 solver Kernels, the wild ranks' in order. */
static int set_kernels(RuleObject *self, PyObject *kernels) {
    PyObject *seq = PySequence_Fast(kernels, "kernels must be a sequence of 13 solver Kernels");
    if (seq == NULL) return 0;
    int ok = PySequence_Fast_GET_SIZE(seq) == 13;
    if (!ok)
        PyErr_Format(PyExc_ValueError,
                     "kernels must hold 13 solver Kernels (wild ranks 1..13), "
                     "got %zd",
                     PySequence_Fast_GET_SIZE(seq));
    for (Py_ssize_t i = 0; ok && i < 13; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
        ok = tt_kernel_of(item, "every item of kernels") != NULL;
        if (ok) {
            Py_INCREF(item);
            self->kernels[i] = item;
        }
    }
    Py_DECREF(seq);
    return ok;
}

static PyObject *Rule_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    static char *names[] = {"kernels",     "starts",    "observation_size",
                            "num_players", "deck",      "discard_drawn_upcard",
                            "lookahead",   "feed_cost", "wild_feed_cost",
                            "candidates",  "margin",    NULL};
    PyObject *kernels, *starts, *size, *players, *deck, *params[5];
    int ddu;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOO$OOpOOOOO:Rule", names, &kernels, &starts,
                                     &size, &players, &deck, &ddu, &params[0], &params[1],
                                     &params[2], &params[3], &params[4]))
        return NULL;
    RuleObject *self = (RuleObject *)type->tp_alloc(type, 0);
    if (self == NULL) return NULL;
    int64_t n;
    if (!tt_get_int(players, 2, TT_MAX_SEATS, &n, "num_players") ||
        !tt_get_rule(params, ddu, &self->rule) ||
        !tt_get_observer(starts, size, players, deck, &self->observer) ||
        !set_kernels(self, kernels)) {
        Py_DECREF(self);
        return NULL;
    }
    self->last.take = self->last.now = -1;
    return (PyObject *)self;
}

/* decide(observation, mask): the rule's action (-1: not certified, ask the Python rule). */
static PyObject *Rule_decide(RuleObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "decide() takes 2 arguments (observation, mask), %zd given",
                     nargs);
        return NULL;
    }
    Py_buffer obs, mask;
    if (!tt_get_vector(args[0], &obs, "observation", "f", 4, self->observer.layout.size, 0))
        return NULL;
    if (!tt_get_vector(args[1], &mask, "mask", "iu?", 1, TT_ACTIONS, 0)) {
        PyBuffer_Release(&obs);
        return NULL;
    }
    PyObject *result = NULL;
    tt_seen seen;
    if (see_checked(&self->observer, obs.buf, &seen)) {
        const tt_solver *S = &((tt_KernelObject *)self->kernels[seen.wild])->s;
        int64_t action = tt_decide_seen(S, &self->rule, &seen, mask.buf, &self->last);
        result = PyLong_FromLongLong(action);
    }
    PyBuffer_Release(&obs);
    PyBuffer_Release(&mask);
    return result;
}

static PyObject *Rule_get_shortlist(RuleObject *self, void *Py_UNUSED(closure)) {
    PyObject *out = PyTuple_New(self->last.shortlist);
    for (int64_t i = 0; out != NULL && i < self->last.shortlist; i++) {
        PyObject *pair = Py_BuildValue("(Ld)", (long long)self->last.short_kind[i],
                                       self->last.short_value[i]);
        if (pair == NULL) {
            Py_CLEAR(out);
            break;
        }
        PyTuple_SET_ITEM(out, i, pair);
    }
    return out;
}

static PyObject *Rule_get_take(RuleObject *self, void *Py_UNUSED(closure)) {
    return PyLong_FromLongLong(self->last.take);
}

static PyObject *Rule_get_now(RuleObject *self, void *Py_UNUSED(closure)) {
    return PyLong_FromLongLong(self->last.now);
}

static PyMethodDef Rule_methods[] = {
    {"decide", (PyCFunction)(void (*)(void))Rule_decide, METH_FASTCALL,
     "decide(observation, mask): the rule's action for the seat whose observation (float32) "
     "and action mask (108 int8) these are; -1 when the solver cannot certify a value it needs."},
    {NULL},
};

static PyGetSetDef Rule_getset[] = {
    {"shortlist", (getter)Rule_get_shortlist, NULL,
     "The last discard decision's candidates as (kind, value) pairs, best first; empty when "
     "it needed no look-ahead.",
     NULL},
    {"take", (getter)Rule_get_take, NULL,
     "The last draw decision's penalty after taking the top discard (-1: not valued).", NULL},
    {"now", (getter)Rule_get_now, NULL,
     "The last draw decision's penalty of the hand as it was (-1: not valued).", NULL},
    {NULL},
};

static PyTypeObject RuleType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tt_env.valuation._crule.Rule",
    .tp_basicsize = sizeof(RuleObject),
    .tp_dealloc = (destructor)Rule_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The expected-penalty rule for one rule set and its parameters (see the module).",
    .tp_new = Rule_new,
    .tp_methods = Rule_methods,
    .tp_getset = Rule_getset,
};

/* ------------------------------------------------------------------ module */

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "tt_env.valuation._crule",
    .m_doc = "What a seat knows (Observer) and the expected-penalty rule (Rule), compiled.",
    .m_size = -1,
};

/* Add `type` to `m` as `name`; -1 with an exception. */
static int add_type(PyObject *m, PyTypeObject *type, const char *name) {
    Py_INCREF(type);
    if (PyModule_AddObject(m, name, (PyObject *)type) < 0) {
        Py_DECREF(type);
        return -1;
    }
    return 0;
}

PyMODINIT_FUNC PyInit__crule(void) {
    if (PyType_Ready(&RuleType) < 0 || PyType_Ready(&ObserverType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    PyObject *pieces = tt_piece_names();
    if (pieces == NULL || PyModule_AddObject(m, "PIECES", pieces) < 0) {
        Py_XDECREF(pieces);
        Py_DECREF(m);
        return NULL;
    }
    if (add_type(m, &RuleType, "Rule") < 0 || add_type(m, &ObserverType, "Observer") < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
