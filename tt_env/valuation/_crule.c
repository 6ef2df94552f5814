/* tt_env.valuation._crule: the expected-penalty rule (the play of `counting`), compiled
   (rule.h).

   Rule(kernels, layout, observation_size, *, num_players, deck, discard_drawn_upcard,
   lookahead, feed_cost, wild_feed_cost, candidates, margin) holds the rule's parameters, where
   the pieces it reads sit in the observation (`layout`: PIECES -> offset) and the solver
   Kernels of wild ranks 1..13 (tt_env.game.melds._csolver); tt_env.valuation.heuristics
   builds it (CompiledExpectedPenalty). Rule.decide(observation, mask) is the rule's action for
   the seat whose observation and action mask these are, -1 when the solver cannot certify a
   value it needs (the Python rule then decides); afterwards `shortlist`, `take` and `now` say
   what it weighed.

   Nothing reaches the C code unchecked: the arrays through the buffer protocol (element type,
   length, C order; no numpy at build time), every piece of the layout inside the observation,
   and every count the rule reads from an observation (a whole number of cards, 0..255). A bad
   argument raises TypeError or ValueError naming it. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "game/melds/_csolver.h"
#include "util/pyargs.h"
#include "valuation/_crule.h"
#include "valuation/rule.h"

#define MAX_COPIES 255 /* a count of cards the rule reads (a hand is uint8 counts) */

/* The pieces of the observation the rule reads, and their widths (per seat for `known`). */
static const char *const PIECES[] = {"hand",      "top_discard", "discard_below", "table",
                                     "wild_rank", "phase",       "final_turn",    "known"};
static const Py_ssize_t PIECE_WIDTHS[] = {53, 53, 53, 53, 13, 1, 1, 53};
#define NUM_PIECES 8

/* ------------------------------------------------------------------ Rule */

typedef struct {
    PyObject_HEAD
    PyObject *kernels[13]; /* the solver Kernels of wild ranks 1..13 (references held) */
    tt_rule rule;
    tt_observation lay;
    Py_ssize_t observation_size;
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

/* layout: PIECES -> offset in an observation of observation_size values; every piece must lie
   inside it (num_players rows of `known`). */
static int set_layout(RuleObject *self, PyObject *layout) {
    if (!PyDict_Check(layout)) {
        PyErr_Format(PyExc_TypeError, "layout must be a dict of piece offsets, not %.100s",
                     Py_TYPE(layout)->tp_name);
        return 0;
    }
    int64_t offsets[NUM_PIECES];
    for (int i = 0; i < NUM_PIECES; i++) {
        PyObject *value = PyDict_GetItemString(layout, PIECES[i]); /* borrowed */
        if (value == NULL) {
            PyErr_Format(PyExc_ValueError, "layout has no offset of the piece '%s'", PIECES[i]);
            return 0;
        }
        Py_ssize_t width = PIECE_WIDTHS[i] * (i == NUM_PIECES - 1 ? self->lay.num_players : 1);
        if (width > self->observation_size) {
            PyErr_Format(PyExc_ValueError, "observation_size %zd cannot hold the piece '%s'",
                         self->observation_size, PIECES[i]);
            return 0;
        }
        char what[64];
        snprintf(what, sizeof what, "layout['%s']", PIECES[i]);
        if (!tt_get_int(value, 0, self->observation_size - width, &offsets[i], what)) return 0;
    }
    tt_observation *lay = &self->lay;
    lay->hand = offsets[0];
    lay->top_discard = offsets[1];
    lay->discard_below = offsets[2];
    lay->table = offsets[3];
    lay->wild_rank = offsets[4];
    lay->phase = offsets[5];
    lay->final_turn = offsets[6];
    lay->known = offsets[7];
    return 1;
}

/* deck: the copies of each of the 53 card kinds in play. */
static int set_deck(RuleObject *self, PyObject *deck) {
    return tt_get_ints(deck, 53, 0, MAX_COPIES, self->lay.deck, "deck");
}

static PyObject *Rule_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    static char *names[] = {"kernels",     "layout",    "observation_size",
                            "num_players", "deck",      "discard_drawn_upcard",
                            "lookahead",   "feed_cost", "wild_feed_cost",
                            "candidates",  "margin",    NULL};
    PyObject *kernels, *layout, *size, *players, *deck, *params[5];
    int ddu;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOO$OOpOOOOO:Rule", names, &kernels, &layout,
                                     &size, &players, &deck, &ddu, &params[0], &params[1],
                                     &params[2], &params[3], &params[4]))
        return NULL;
    RuleObject *self = (RuleObject *)type->tp_alloc(type, 0);
    if (self == NULL) return NULL;
    int64_t n;
    if (!tt_get_int(size, 1, PY_SSIZE_T_MAX, &n, "observation_size") ||
        !tt_get_int(players, 2, TT_MAX_SEATS, &self->lay.num_players, "num_players") ||
        !tt_get_rule(params, ddu, &self->rule)) {
        Py_DECREF(self);
        return NULL;
    }
    self->observation_size = (Py_ssize_t)n;
    if (!set_kernels(self, kernels) || !set_layout(self, layout) || !set_deck(self, deck)) {
        Py_DECREF(self);
        return NULL;
    }
    self->last.take = self->last.now = -1;
    return (PyObject *)self;
}

/* Every count the rule reads from `obs` (the hand, the discard pile below the top, the table,
   what the other seats are known to hold) must round to a number of cards 0..255. */
static int check_counts(const RuleObject *self, const float *obs) {
    const tt_observation *lay = &self->lay;
    struct {
        const char *name;
        int64_t at, width;
    } read[] = {
        {"hand", lay->hand, 53},
        {"discard_below", lay->discard_below, 53},
        {"table", lay->table, 53},
        {"known", lay->known + 53, 53 * (lay->num_players - 1)},
    };
    for (size_t i = 0; i < sizeof read / sizeof *read; i++) {
        for (int64_t j = 0; j < read[i].width; j++) {
            double x = obs[read[i].at + j], r = rint(x);
            if (!(r >= 0 && r <= MAX_COPIES)) {
                char what[80];
                snprintf(what, sizeof what, "observation[%lld] (the piece '%s')",
                         (long long)(read[i].at + j), read[i].name);
                tt_bad_number(what, "a count of cards 0..255", x);
                return 0;
            }
        }
    }
    return 1;
}

/* decide(observation, mask): the rule's action (-1: not certified, ask the Python rule). */
static PyObject *Rule_decide(RuleObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "decide() takes 2 arguments (observation, mask), %zd given",
                     nargs);
        return NULL;
    }
    Py_buffer obs, mask;
    if (!tt_get_vector(args[0], &obs, "observation", "f", 4, self->observation_size, 0))
        return NULL;
    if (!tt_get_vector(args[1], &mask, "mask", "iu?", 1, TT_NUM_ACTIONS, 0)) {
        PyBuffer_Release(&obs);
        return NULL;
    }
    PyObject *result = NULL;
    if (check_counts(self, obs.buf)) {
        int64_t wild_rank = tt_observed_wild_rank(&self->lay, obs.buf);
        const tt_solver *S = &((tt_KernelObject *)self->kernels[wild_rank - 1])->s;
        int64_t action = tt_decide_observation(S, &self->rule, &self->lay, obs.buf, mask.buf,
                                               &self->last);
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
    .m_doc = "The expected-penalty rule (the play of counting), compiled: see Rule.",
    .m_size = -1,
};

PyMODINIT_FUNC PyInit__crule(void) {
    if (PyType_Ready(&RuleType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    PyObject *pieces = Py_BuildValue("(ssssssss)", PIECES[0], PIECES[1], PIECES[2], PIECES[3],
                                     PIECES[4], PIECES[5], PIECES[6], PIECES[7]);
    if (pieces == NULL || PyModule_AddObject(m, "PIECES", pieces) < 0) {
        Py_XDECREF(pieces);
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&RuleType);
    if (PyModule_AddObject(m, "Rule", (PyObject *)&RuleType) < 0) {
        Py_DECREF(&RuleType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
