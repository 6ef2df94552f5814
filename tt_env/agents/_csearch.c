/* tt_env.agents._csearch: the search agent's deals and rollouts, compiled (search.h).

   Searcher(*, num_players, deck, turn_cap, discard_drawn_upcard, horizon, policy, lookahead,
   feed_cost, wild_feed_cost, candidates, margin) holds the rollouts' settings (who plays how,
   the expected-penalty rule's parameters) and the state of its random generator, numba's
   (search.h): Searcher.seed(value) seeds it, and every Searcher.search(kernel, ...) call after
   that draws on, so that a search split into several calls (tt_env.agents.search checks the
   clock between them) deals exactly as one call would. search() plays its deals from seat 0's
   view (the searcher's hand, what every seat is known to hold and how many cards it holds,
   the cards it has not seen, the stock's size, the discard pile, the turn) and writes one row
   of results per deal, one column per candidate action.

   Nothing reaches the C code unchecked: the arrays through the buffer protocol (element type,
   shape, C order; no numpy at build time), every count and card kind, the seat count, the
   cards in play (they must fit the rollouts' stock and discard pile), and every candidate
   action, which must be playable from the position given. A bad argument raises TypeError or
   ValueError naming it. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "agents/search.h"
#include "game/melds/_csolver.h"

#define MAX_COPIES 255        /* a count of cards in a hand or known to be held (uint8 hands) */
#define MAX_TURN_CAP 10000    /* Rules: MAX_TURNS_PER_ROUND */
#define MAX_SEED 0xffffffffLL /* numba seeds its generator with 32 bits */

/* ------------------------------------------------------------------ buffers */

/* Whether a buffer's struct-module format is one item of a type among `codes` (with a byte
   order prefix only when it is this machine's). */
static int format_is(const Py_buffer *view, const char *codes) {
    const char *f = view->format ? view->format : "B";
    const uint16_t probe = 1;
    const char native = *(const char *)&probe ? '<' : '>';
    if (*f == '@' || *f == '=' || *f == native) f++;
    return f[0] != '\0' && f[1] == '\0' && strchr(codes, f[0]) != NULL;
}

/* Get `obj`'s buffer into `view`: a C-contiguous array of items of one of the struct-module
   `codes`, of `itemsize` bytes, with `ndim` dimensions of the given `shape` (-1: any size).
   0 with a TypeError or ValueError naming `what` (and no buffer held) otherwise. */
static int get_array(PyObject *obj, Py_buffer *view, const char *what, const char *codes,
                     Py_ssize_t itemsize, const char *type_name, int ndim,
                     const Py_ssize_t *shape, int writable) {
    if (PyObject_GetBuffer(obj, view, writable ? PyBUF_RECORDS : PyBUF_RECORDS_RO) < 0) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s must be a%s array of %s, not %.100s", what,
                     writable ? " writable" : "n", type_name, Py_TYPE(obj)->tp_name);
        return 0;
    }
    int shape_ok = view->ndim == ndim;
    for (int i = 0; shape_ok && i < ndim; i++)
        shape_ok = shape[i] < 0 || view->shape[i] == shape[i];
    if (!format_is(view, codes) || view->itemsize != itemsize) {
        PyErr_Format(PyExc_TypeError, "%s must be an array of %s, got format '%s'", what,
                     type_name, view->format ? view->format : "B");
    } else if (!shape_ok) {
        char want[64] = "(", *at = want + 1;
        for (int i = 0; i < ndim; i++) {
            const char *sep = i + 1 < ndim ? ", " : (ndim == 1 ? ",)" : ")");
            if (shape[i] < 0)
                at += snprintf(at, sizeof want - (size_t)(at - want), "any%s", sep);
            else
                at += snprintf(at, sizeof want - (size_t)(at - want), "%zd%s", shape[i], sep);
        }
        PyErr_Format(PyExc_ValueError, "%s must be an array of the shape %s", what, want);
    } else if (!PyBuffer_IsContiguous(view, 'C')) {
        PyErr_Format(PyExc_ValueError, "%s must be C-contiguous", what);
    } else {
        return 1;
    }
    PyBuffer_Release(view);
    return 0;
}

/* An integer (any object with __index__, as numpy's) in lo..hi, or 0 with an exception
   naming `what`. */
static int get_int(PyObject *obj, int64_t lo, int64_t hi, int64_t *out, const char *what) {
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

/* Every value of int64 array a[0..n) in lo..hi, or 0 with a ValueError naming `what`. */
static int check_values(const int64_t *a, Py_ssize_t n, int64_t lo, int64_t hi,
                        const char *what) {
    for (Py_ssize_t i = 0; i < n; i++) {
        if (a[i] < lo || a[i] > hi) {
            PyErr_Format(PyExc_ValueError, "%s must hold values %lld..%lld, got %lld at %zd",
                         what, (long long)lo, (long long)hi, (long long)a[i], i);
            return 0;
        }
    }
    return 1;
}

/* A sequence of `n` integers in lo..hi into out, or 0 with an exception naming `what`. */
static int get_ints(PyObject *obj, Py_ssize_t n, int64_t lo, int64_t hi, int64_t *out,
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
        ok = get_int(PySequence_Fast_GET_ITEM(seq, i), lo, hi, &out[i], what);
    Py_DECREF(seq);
    return ok;
}

/* A ValueError "<what> must be <must>, got <x>". */
static void bad_number(const char *what, const char *must, double x) {
    PyObject *value = PyFloat_FromDouble(x);
    if (value == NULL) return;
    PyErr_Format(PyExc_ValueError, "%s must be %s, got %R", what, must, value);
    Py_DECREF(value);
}

/* The expected-penalty rule's parameters (lookahead, feed_cost, wild_feed_cost, candidates,
   margin: finite numbers, candidates truncated like int()) into rule, or 0 with an exception
   naming the one that is not. */
static int get_rule(PyObject *const *params, int discard_drawn_upcard, tt_rule *rule) {
    static const char *const names[] = {"lookahead", "feed_cost", "wild_feed_cost", "candidates",
                                        "margin"};
    double v[5];
    for (int i = 0; i < 5; i++) {
        v[i] = PyFloat_AsDouble(params[i]);
        if (v[i] == -1.0 && PyErr_Occurred()) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "%s must be a number, not %.100s", names[i],
                         Py_TYPE(params[i])->tp_name);
            return 0;
        }
        if (!isfinite(v[i])) {
            bad_number(names[i], "a finite number", v[i]);
            return 0;
        }
    }
    if (!(fabs(v[3]) < 9007199254740992.0)) { /* 2**53: past it, no longer a whole number */
        bad_number(names[3], "a whole number below 2**53", v[3]);
        return 0;
    }
    *rule = (tt_rule){
        .lookahead = v[0],
        .feed_cost = v[1],
        .wild_feed_cost = v[2],
        .candidates = (int64_t)v[3],
        .margin = v[4],
        .discard_drawn_upcard = discard_drawn_upcard != 0,
    };
    return 1;
}

/* ------------------------------------------------------------------ Searcher */

typedef struct {
    PyObject_HEAD
    tt_searcher T;
} SearcherObject;

static PyObject *Searcher_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    static char *names[] = {"num_players", "deck",      "turn_cap",  "discard_drawn_upcard",
                            "horizon",     "policy",    "lookahead", "feed_cost",
                            "wild_feed_cost", "candidates", "margin", NULL};
    PyObject *players, *deck, *turn_cap, *horizon, *policy, *params[5];
    int ddu;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "$OOOpOOOOOOO:Searcher", names, &players, &deck,
                                     &turn_cap, &ddu, &horizon, &policy, &params[0], &params[1],
                                     &params[2], &params[3], &params[4]))
        return NULL;
    SearcherObject *self = (SearcherObject *)type->tp_alloc(type, 0);
    if (self == NULL) return NULL;
    tt_rollouts *set = &self->T.set;
    int64_t policies[TT_MAX_SEATS];
    if (!get_int(players, 2, TT_MAX_SEATS, &set->num_players, "num_players") ||
        !get_int(turn_cap, 1, MAX_TURN_CAP, &set->turn_cap, "turn_cap") ||
        !get_int(horizon, 0, INT32_MAX, &set->horizon, "horizon") ||
        !get_ints(deck, 53, 0, MAX_COPIES, set->deck, "deck") ||
        !get_ints(policy, set->num_players, TT_GREEDY, TT_COUNTING, policies,
                  "policy (one per seat: 0 greedy, 1 counting)") ||
        !get_rule(params, ddu, &set->rule)) {
        Py_DECREF(self);
        return NULL;
    }
    for (int64_t s = 0; s < set->num_players; s++) set->policy[s] = (int)policies[s];
    tt_random_seed(&self->T.random, 0);
    return (PyObject *)self;
}

/* seed(value): seed the random generator (np.random.seed in numba: 32 bits). */
static PyObject *Searcher_seed(SearcherObject *self, PyObject *value) {
    int64_t seed;
    if (!get_int(value, 0, MAX_SEED, &seed, "seed")) return NULL;
    tt_random_seed(&self->T.random, (uint32_t)seed);
    Py_RETURN_NONE;
}

/* The cards dealt to the stock by tt_deal(): the seats' missing cards come first. */
static int64_t stock_dealt(const tt_rollouts *set, const tt_round *start,
                           const tt_hidden *hidden) {
    int64_t total = 0, needed = 0;
    for (int k = 0; k < 53; k++) total += hidden->unseen[k];
    for (int64_t s = 1; s < set->num_players; s++) {
        int64_t held = 0;
        for (int k = 0; k < 53; k++) held += start->known[s][k];
        if (hidden->sizes[s] > held) needed += hidden->sizes[s] - held;
    }
    int64_t left = total - (needed < total ? needed : total);
    return hidden->stock_size < left ? hidden->stock_size : left;
}

/* Whether every candidate action can be played from `start` (a draw in the draw phase: from a
   stock that the deal fills or the pile rebuilds, or the top discard; a discard of a card held
   in the discard phase), else 0 with a ValueError. */
static int check_actions(const tt_searcher *T, const int64_t *actions, Py_ssize_t nact) {
    const tt_round *start = &T->start;
    int64_t nstock = stock_dealt(&T->set, start, &T->hidden);
    for (Py_ssize_t a = 0; a < nact; a++) {
        int64_t act = actions[a];
        const char *bad = NULL;
        if (act < 0 || act >= TT_NUM_ACTIONS)
            bad = "is not an action id";
        else if ((act == TT_STOCK || act == TT_TAKE) != start->draw_phase)
            bad = start->draw_phase ? "is not a draw (the draw phase)"
                                    : "is a draw (the discard phase)";
        else if (act == TT_STOCK && nstock == 0 && start->npile < 2)
            bad = "draws from an empty stock that the discard pile cannot rebuild";
        else if (act == TT_TAKE && start->npile == 0)
            bad = "takes from an empty discard pile";
        else if (act >= TT_DISCARD_BASE && !start->hands[0][(act - TT_DISCARD_BASE) % 53])
            bad = "discards a card the hand does not hold";
        if (bad != NULL) {
            PyErr_Format(PyExc_ValueError, "actions[%zd] (%lld) %s", a, (long long)act, bad);
            return 0;
        }
    }
    return 1;
}

/* The arrays of a search() call. */
enum { HAND, KNOWN, SIZES, UNSEEN, PILE, ACTIONS, RESULTS, NUM_ARRAYS };

/* Take the arrays' buffers into views (checked: element type, shape, C order), or 0 with an
   exception and none held. n: the seat count. */
static int get_arrays(PyObject *const *objs, Py_buffer *views, Py_ssize_t n) {
    struct {
        const char *what, *codes, *type_name;
        Py_ssize_t itemsize;
        int ndim;
        Py_ssize_t shape[2]; /* -1: any size */
        int writable;
    } spec[NUM_ARRAYS] = {
        [HAND] = {"hand", "B", "uint8", 1, 1, {53}, 0},
        [KNOWN] = {"known", "lq", "int64", 8, 2, {n, 53}, 0},
        [SIZES] = {"sizes", "lq", "int64", 8, 1, {n}, 0},
        [UNSEEN] = {"unseen", "lq", "int64", 8, 1, {53}, 0},
        [PILE] = {"pile", "lq", "int64", 8, 1, {-1}, 0},
        [ACTIONS] = {"actions", "lq", "int64", 8, 1, {-1}, 0},
        [RESULTS] = {"results", "d", "float64", 8, 2, {-1, -1}, 1},
    };
    for (int i = 0; i < NUM_ARRAYS; i++) {
        if (i == RESULTS) spec[i].shape[1] = views[ACTIONS].shape[0]; /* a column per action */
        if (!get_array(objs[i], &views[i], spec[i].what, spec[i].codes, spec[i].itemsize,
                       spec[i].type_name, spec[i].ndim, spec[i].shape, spec[i].writable)) {
            while (i > 0) PyBuffer_Release(&views[--i]);
            return 0;
        }
    }
    return 1;
}

/* Check the arrays' values and copy them into the searcher's start position, or 0 with a
   ValueError. */
static int set_start(tt_searcher *T, const Py_buffer *views, int draw_phase) {
    const Py_ssize_t n = T->set.num_players;
    const uint8_t *hand = views[HAND].buf;
    const int64_t *known = views[KNOWN].buf, *unseen = views[UNSEEN].buf, *pile = views[PILE].buf;
    const Py_ssize_t npile = views[PILE].shape[0];
    if (!check_values(known, n * 53, 0, MAX_COPIES, "known") ||
        !check_values(views[SIZES].buf, n, 0, TT_CARDS_IN_PLAY, "sizes") ||
        !check_values(unseen, 53, 0, TT_CARDS_IN_PLAY, "unseen") ||
        !check_values(pile, npile, 0, 52, "pile (card kinds)"))
        return 0;
    /* every card in play must fit the rollouts' stock and discard pile: the cards only move
       between the hands, the stock and the pile */
    int64_t cards = npile;
    for (int k = 0; k < 53; k++) cards += hand[k] + unseen[k];
    for (Py_ssize_t i = 53; i < n * 53; i++) cards += known[i];
    if (cards > TT_CARDS_IN_PLAY) {
        PyErr_Format(PyExc_ValueError,
                     "the hand, the other seats' known cards, the unseen cards and the discard "
                     "pile hold %lld cards, more than the %d a round has at most",
                     (long long)cards, TT_CARDS_IN_PLAY);
        return 0;
    }
    tt_round *start = &T->start;
    tt_hidden *hidden = &T->hidden;
    memcpy(start->hands[0], hand, 53);
    memcpy(start->known, known, (size_t)(n * 53) * sizeof(int64_t));
    memcpy(hidden->sizes, views[SIZES].buf, (size_t)n * sizeof(int64_t));
    memcpy(hidden->unseen, unseen, 53 * sizeof(int64_t));
    for (Py_ssize_t i = 0; i < npile; i++) start->pile[i] = (uint8_t)pile[i];
    start->npile = npile;
    start->nstock = 0; /* the deal fills it */
    start->current = 0;
    start->draw_phase = draw_phase != 0;
    /* a draw's own discard does not count: the horizon is in whole turns after this one */
    start->mine = draw_phase ? -1 : 0;
    return 1;
}

/* search(kernel, *, hand, known, sizes, unseen, stock_size, pile, draw_phase, drawn_upcard,
   went_out, turns, actions, results): see the method's docstring. */
static PyObject *Searcher_search(SearcherObject *self, PyObject *args, PyObject *kwds) {
    static char *names[] = {"kernel",     "hand", "known",      "sizes",        "unseen",
                            "stock_size", "pile", "draw_phase", "drawn_upcard", "went_out",
                            "turns",      "actions", "results", NULL};
    PyObject *kernel, *objs[NUM_ARRAYS], *stock_size, *drawn, *went_out, *turns;
    int draw_phase;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O$OOOOOOpOOOOO:search", names, &kernel,
                                     &objs[HAND], &objs[KNOWN], &objs[SIZES], &objs[UNSEEN],
                                     &stock_size, &objs[PILE], &draw_phase, &drawn, &went_out,
                                     &turns, &objs[ACTIONS], &objs[RESULTS]))
        return NULL;
    tt_KernelObject *k = tt_kernel_of(kernel, "kernel");
    if (k == NULL) return NULL;
    tt_searcher *T = &self->T;
    if (!get_int(stock_size, 0, TT_CARDS_IN_PLAY, &T->hidden.stock_size, "stock_size") ||
        !get_int(drawn, -1, 52, &T->start.drawn, "drawn_upcard") ||
        !get_int(went_out, -1, T->set.num_players - 1, &T->start.went_out, "went_out") ||
        !get_int(turns, 0, T->set.turn_cap, &T->start.turns, "turns"))
        return NULL;
    Py_buffer views[NUM_ARRAYS];
    if (!get_arrays(objs, views, T->set.num_players)) return NULL;
    const Py_ssize_t nact = views[ACTIONS].shape[0];
    int ok = set_start(T, views, draw_phase) && check_actions(T, views[ACTIONS].buf, nact);
    if (ok)
        tt_search(T, &k->s, views[ACTIONS].buf, nact, views[RESULTS].shape[0],
                  views[RESULTS].buf);
    for (int i = 0; i < NUM_ARRAYS; i++) PyBuffer_Release(&views[i]);
    if (!ok) return NULL;
    Py_RETURN_NONE;
}

static PyMethodDef Searcher_methods[] = {
    {"seed", (PyCFunction)Searcher_seed, METH_O,
     "seed(value): seed the random generator of the deals and stock rebuilds (0..2**32-1), as "
     "numba's np.random.seed did."},
    {"search", (PyCFunction)(void (*)(void))Searcher_search, METH_VARARGS | METH_KEYWORDS,
     "search(kernel, *, hand, known, sizes, unseen, stock_size, pile, draw_phase, drawn_upcard, "
     "went_out, turns, actions, results): play len(results) deals, each candidate action "
     "(0 stock, 1 take, 2 + k discard k) on every deal, and roll the round out; results[i, a] "
     "is seat 0's penalty less the mean of the others' on deal i after action a (lower is "
     "better).\n\nkernel: the solver Kernel of the round's wild rank; hand: seat 0's counts "
     "(53 uint8); known: (seats, 53) int64, what each seat is known to hold; sizes: the cards "
     "each seat holds (int64); unseen: the copies seat 0 has not seen (53 int64); stock_size; "
     "pile: the discard pile's card kinds, top last (int64); draw_phase, drawn_upcard (-1: "
     "none), went_out (the seat that went out, -1: none), turns (played this round); actions "
     "(int64); results: (deals, len(actions)) float64, written."},
    {NULL},
};

static PyTypeObject SearcherType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tt_env.agents._csearch.Searcher",
    .tp_basicsize = sizeof(SearcherObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The search agent's deals and rollouts, with their random generator (see the "
              "module).",
    .tp_new = Searcher_new,
    .tp_methods = Searcher_methods,
};

/* ------------------------------------------------------------------ module */

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "tt_env.agents._csearch",
    .m_doc = "The search agent's deals and rollouts, compiled: see Searcher.",
    .m_size = -1,
};

PyMODINIT_FUNC PyInit__csearch(void) {
    if (PyType_Ready(&SearcherType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    if (PyModule_AddIntConstant(m, "GREEDY", TT_GREEDY) < 0 ||
        PyModule_AddIntConstant(m, "COUNTING", TT_COUNTING) < 0 ||
        PyModule_AddIntConstant(m, "CARDS_IN_PLAY", TT_CARDS_IN_PLAY) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&SearcherType);
    if (PyModule_AddObject(m, "Searcher", (PyObject *)&SearcherType) < 0) {
        Py_DECREF(&SearcherType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
