/* tt_env.agents._csearch: the search agent's deals and rollouts, compiled (search.h).

   Searcher(*, num_players, deck, turn_cap, discard_drawn_upcard, horizon, policy, lookahead,
   feed_cost, wild_feed_cost, candidates, margin, joker_layoff) holds the rollouts' settings
   (who plays how, the expected-penalty rule's parameters) and the state of its random
   generator, numpy's (util/rng.h): Searcher.seed(entropy) seeds it as
   np.random.default_rng(entropy), and every Searcher.search(kernel, ...) call after that draws
   on, so that a search split into several calls (tt_env.agents.search checks the clock between
   them) deals exactly as one call would. search() plays its deals from seat 0's view (the
   searcher's hand, what every seat is known to hold and how many cards it holds, the cards it
   has not seen, the stock's size, the discard pile, the turn) and writes one row of results
   per deal, one column per candidate action. Searcher.play(kernel, ...) plays one
   round that is wholly given (every hand, the stock in order) to its end with the rollouts'
   policies: what a test compares with the engine. random_draws(entropy, ops) draws from the
   same generator as numpy's Generator would: what a test compares with numpy.

   Nothing reaches the C code unchecked: the arrays through the buffer protocol (element type,
   shape, C order; no numpy at build time), every count and card kind, the seat count, the
   cards in play (they must fit the rollouts' stock and discard pile), and every candidate
   action, which must be playable from the position given. A bad argument raises TypeError or
   ValueError naming it. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "agents/search.h"
#include "game/melds/_csolver.h"
#include "util/pyargs.h"
#include "valuation/_crule.h"

#define MAX_COPIES 255      /* a count of cards in a hand or known to be held (uint8 hands) */
#define MAX_TURN_CAP 10000  /* Rules: MAX_TURNS_PER_ROUND */
#define MAX_DRAWS (1 << 20) /* random_draws(): the numbers one op may draw */

/* ------------------------------------------------------------------ Searcher */

typedef struct {
    PyObject_HEAD
    tt_searcher T;
} SearcherObject;

static PyObject *Searcher_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    static char *names[] = {
        "num_players", "deck",         "turn_cap",  "discard_drawn_upcard", "horizon",
        "policy",      "lookahead",    "feed_cost", "wild_feed_cost",       "candidates",
        "margin",      "joker_layoff", NULL};
    PyObject *players, *deck, *turn_cap, *horizon, *policy, *params[5];
    int ddu, joker_layoff;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "$OOOpOOOOOOOp:Searcher", names, &players, &deck,
                                     &turn_cap, &ddu, &horizon, &policy, &params[0], &params[1],
                                     &params[2], &params[3], &params[4], &joker_layoff))
        return NULL;
    SearcherObject *self = (SearcherObject *)type->tp_alloc(type, 0);
    if (self == NULL) return NULL;
    tt_rollouts *set = &self->T.set;
    int64_t policies[TT_MAX_SEATS];
    if (!tt_get_int(players, 2, TT_MAX_SEATS, &set->num_players, "num_players") ||
        !tt_get_int(turn_cap, 1, MAX_TURN_CAP, &set->turn_cap, "turn_cap") ||
        !tt_get_int(horizon, 0, INT32_MAX, &set->horizon, "horizon") ||
        !tt_get_ints(deck, 53, 0, MAX_COPIES, set->deck, "deck") ||
        !tt_get_ints(policy, set->num_players, TT_GREEDY, TT_COUNTING, policies,
                     "policy (one per seat: 0 greedy, 1 counting)") ||
        !tt_get_rule(params, ddu, &set->rule)) {
        Py_DECREF(self);
        return NULL;
    }
    for (int64_t s = 0; s < set->num_players; s++) set->policy[s] = (int)policies[s];
    set->joker_layoff = joker_layoff != 0;
    const uint64_t zero = 0;
    tt_rng_seed(&self->T.random, &zero, 1);
    return (PyObject *)self;
}

/* The generator of np.random.default_rng(entropy) into g, or 0 with an exception. */
static int seed_from(PyObject *entropy, tt_rng *g) {
    uint64_t words[TT_RNG_MAX_ENTROPY];
    Py_ssize_t n;
    if (!tt_get_entropy(entropy, words, TT_RNG_MAX_ENTROPY, &n, "seed")) return 0;
    tt_rng_seed(g, words, (int)n);
    return 1;
}

/* seed(entropy): seed the random generator as np.random.default_rng(entropy). */
static PyObject *Searcher_seed(SearcherObject *self, PyObject *entropy) {
    if (!seed_from(entropy, &self->T.random)) return NULL;
    Py_RETURN_NONE;
}

/* The cards dealt to the stock by tt_deal(): the seats' missing cards come first. */
static int64_t stock_dealt(const tt_rollouts *set, const tt_round *start, const tt_hidden *hidden) {
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

/* What an array argument must be (tt_get_array()'s checks). */
typedef struct {
    const char *what, *kind;
    Py_ssize_t itemsize;
    int ndim;
    Py_ssize_t shape[2]; /* -1: any size */
    int writable;
} array_spec;

static void release_views(Py_buffer *views, int count) {
    while (count > 0) PyBuffer_Release(&views[--count]);
}

/* Take count arrays' buffers into views, each checked against its spec, or 0 with an
   exception and none held. */
static int get_views(PyObject *const *objs, Py_buffer *views, const array_spec *spec, int count) {
    for (int i = 0; i < count; i++) {
        if (!tt_get_array(objs[i], &views[i], spec[i].what, spec[i].kind, spec[i].itemsize,
                          spec[i].ndim, spec[i].shape, spec[i].writable)) {
            release_views(views, i);
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
    array_spec spec[NUM_ARRAYS] = {
        [HAND] = {"hand", "u", 1, 1, {53}, 0},
        [KNOWN] = {"known", "i", 8, 2, {n, 53}, 0},
        [SIZES] = {"sizes", "i", 8, 1, {n}, 0},
        [UNSEEN] = {"unseen", "i", 8, 1, {53}, 0},
        [PILE] = {"pile", "i", 8, 1, {-1}, 0},
        [ACTIONS] = {"actions", "i", 8, 1, {-1}, 0},
        [RESULTS] = {"results", "f", 8, 2, {-1, -1}, 1},
    };
    if (!get_views(objs, views, spec, RESULTS)) return 0;
    spec[RESULTS].shape[1] = views[ACTIONS].shape[0]; /* a column per action */
    if (!get_views(objs + RESULTS, views + RESULTS, spec + RESULTS, 1)) {
        release_views(views, RESULTS);
        return 0;
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
    if (!tt_check_values(known, n * 53, 0, MAX_COPIES, "known") ||
        !tt_check_values(views[SIZES].buf, n, 0, TT_CARDS_IN_PLAY, "sizes") ||
        !tt_check_values(unseen, 53, 0, TT_CARDS_IN_PLAY, "unseen") ||
        !tt_check_values(pile, npile, 0, 52, "pile (card kinds)"))
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
    /* the table: what is in play and neither held, seen in the pile, known nor unseen */
    for (int k = 0; k < 53; k++) {
        int64_t t = T->set.deck[k] - hand[k] - unseen[k];
        for (Py_ssize_t s = 1; s < n; s++) t -= known[s * 53 + k];
        start->table[k] = t;
    }
    for (Py_ssize_t i = 0; i < npile; i++) start->table[pile[i]] -= 1;
    for (int k = 0; k < 53; k++)
        if (start->table[k] < 0) start->table[k] = 0;
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
    static char *names[] = {
        "kernel",     "hand",         "known",    "sizes", "unseen",  "stock_size", "pile",
        "draw_phase", "drawn_upcard", "went_out", "turns", "actions", "results",    NULL};
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
    if (!tt_get_int(stock_size, 0, TT_CARDS_IN_PLAY, &T->hidden.stock_size, "stock_size") ||
        !tt_get_int(drawn, -1, 52, &T->start.drawn, "drawn_upcard") ||
        !tt_get_int(went_out, -1, T->set.num_players - 1, &T->start.went_out, "went_out") ||
        !tt_get_int(turns, 0, T->set.turn_cap, &T->start.turns, "turns"))
        return NULL;
    Py_buffer views[NUM_ARRAYS];
    if (!get_arrays(objs, views, T->set.num_players)) return NULL;
    const Py_ssize_t nact = views[ACTIONS].shape[0];
    int ok = set_start(T, views, draw_phase) && check_actions(T, views[ACTIONS].buf, nact);
    if (ok)
        tt_search(T, &k->s, views[ACTIONS].buf, nact, views[RESULTS].shape[0], views[RESULTS].buf);
    release_views(views, NUM_ARRAYS);
    if (!ok) return NULL;
    Py_RETURN_NONE;
}

/* play(kernel, *, hands, known, stock, pile, current, draw_phase, drawn_upcard, went_out,
   turns, out): see the method's docstring. */
static PyObject *Searcher_play(SearcherObject *self, PyObject *args, PyObject *kwds) {
    static char *names[] = {"kernel",     "hands",        "known",    "stock", "pile", "current",
                            "draw_phase", "drawn_upcard", "went_out", "turns", "out",  NULL};
    enum { P_HANDS, P_KNOWN, P_STOCK, P_PILE, P_OUT, P_ARRAYS };
    PyObject *kernel, *objs[P_ARRAYS], *current, *drawn, *went_out, *turns;
    int draw_phase;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O$OOOOOpOOOO:play", names, &kernel,
                                     &objs[P_HANDS], &objs[P_KNOWN], &objs[P_STOCK], &objs[P_PILE],
                                     &current, &draw_phase, &drawn, &went_out, &turns,
                                     &objs[P_OUT]))
        return NULL;
    tt_KernelObject *k = tt_kernel_of(kernel, "kernel");
    if (k == NULL) return NULL;
    tt_searcher *T = &self->T;
    const tt_rollouts *set = &T->set;
    const Py_ssize_t n = set->num_players;
    tt_round *r = &T->play;
    memset(r, 0, sizeof *r);
    if (!tt_get_int(current, 0, n - 1, &r->current, "current") ||
        !tt_get_int(drawn, -1, 52, &r->drawn, "drawn_upcard") ||
        !tt_get_int(went_out, -1, n - 1, &r->went_out, "went_out") ||
        !tt_get_int(turns, 0, set->turn_cap, &r->turns, "turns"))
        return NULL;
    const array_spec spec[P_ARRAYS] = {
        [P_HANDS] = {"hands", "u", 1, 2, {n, 53}, 0}, [P_KNOWN] = {"known", "i", 8, 2, {n, 53}, 0},
        [P_STOCK] = {"stock", "i", 8, 1, {-1}, 0},    [P_PILE] = {"pile", "i", 8, 1, {-1}, 0},
        [P_OUT] = {"out", "i", 8, 1, {n}, 1},
    };
    Py_buffer views[P_ARRAYS];
    if (!get_views(objs, views, spec, P_ARRAYS)) return NULL;
    const uint8_t *hands = views[P_HANDS].buf;
    const int64_t *known = views[P_KNOWN].buf, *stock = views[P_STOCK].buf;
    const int64_t *pile = views[P_PILE].buf;
    const Py_ssize_t nstock = views[P_STOCK].shape[0], npile = views[P_PILE].shape[0];
    int ok = tt_check_values(known, n * 53, 0, MAX_COPIES, "known") &&
             tt_check_values(stock, nstock, 0, 52, "stock (card kinds)") &&
             tt_check_values(pile, npile, 0, 52, "pile (card kinds)");
    /* every copy of a kind is in a hand, the stock, the pile or on the table: no more than the
       deck holds (so that no count overflows and the pile and the stock hold every card) */
    for (int c = 0; ok && c < 53; c++) r->table[c] = set->deck[c];
    for (Py_ssize_t i = 0; ok && i < n * 53; i++) r->table[i % 53] -= hands[i];
    for (Py_ssize_t i = 0; ok && i < nstock; i++) r->table[stock[i]] -= 1;
    for (Py_ssize_t i = 0; ok && i < npile; i++) r->table[pile[i]] -= 1;
    for (int c = 0; ok && c < 53; c++) {
        if (r->table[c] < 0) {
            PyErr_Format(PyExc_ValueError,
                         "the hands, the stock and the pile hold %lld more copies of card kind "
                         "%d than the deck",
                         (long long)-r->table[c], c);
            ok = 0;
        }
    }
    int64_t cards = nstock + npile;
    for (Py_ssize_t i = 0; i < n * 53; i++) cards += hands[i];
    if (ok && cards > TT_CARDS_IN_PLAY) {
        PyErr_Format(PyExc_ValueError,
                     "the hands, the stock and the pile hold %lld cards, more than the %d a "
                     "round has at most",
                     (long long)cards, TT_CARDS_IN_PLAY);
        ok = 0;
    }
    if (ok && r->drawn >= 0 && (draw_phase || !hands[r->current * 53 + r->drawn])) {
        PyErr_SetString(PyExc_ValueError,
                        "drawn_upcard must be -1 in the draw phase, else a card the seat to move "
                        "holds");
        ok = 0;
    }
    if (ok) {
        memcpy(r->hands, hands, (size_t)(n * 53));
        memcpy(r->known, known, (size_t)(n * 53) * sizeof(int64_t));
        for (Py_ssize_t i = 0; i < nstock; i++) r->stock[i] = (uint8_t)stock[i];
        for (Py_ssize_t i = 0; i < npile; i++) r->pile[i] = (uint8_t)pile[i];
        r->nstock = nstock;
        r->npile = npile;
        r->draw_phase = draw_phase != 0;
        r->mine = 0;
        tt_play_round(&T->random, &k->s, set, r, views[P_OUT].buf);
    }
    release_views(views, P_ARRAYS);
    if (!ok) return NULL;
    Py_RETURN_NONE;
}

static PyMethodDef Searcher_methods[] = {
    {"seed", (PyCFunction)Searcher_seed, METH_O,
     "seed(entropy): seed the random generator of the deals and stock rebuilds as "
     "np.random.default_rng(entropy) (an integer 0..2**64-1, or a sequence of at most 8)."},
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
    {"play", (PyCFunction)(void (*)(void))Searcher_play, METH_VARARGS | METH_KEYWORDS,
     "play(kernel, *, hands, known, stock, pile, current, draw_phase, drawn_upcard, went_out, "
     "turns, out): play a round that is wholly given to its end, each seat with its rollout "
     "policy (a stock rebuild shuffles with the random generator); out[s] is seat s's penalty "
     "then (not doubled).\n\nhands: (seats, 53) uint8; known: (seats, 53) int64, what each "
     "seat is known to hold; stock: the stock's card kinds, the next one drawn last (int64); "
     "pile: the discard pile's, top last (int64); the cards in play that are in neither are "
     "on the table; current: the seat to move; draw_phase, drawn_upcard (-1: none), went_out "
     "(-1: none), turns (played this round); out: (seats,) int64, written."},
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

/* ------------------------------------------------------------------ random_draws */

/* A list of n draws of next(g) (each a Python int), or NULL with an exception. */
static PyObject *draw_list(tt_rng *g, Py_ssize_t n, uint64_t (*next)(tt_rng *)) {
    PyObject *list = PyList_New(n);
    for (Py_ssize_t i = 0; list != NULL && i < n; i++) {
        PyObject *x = PyLong_FromUnsignedLongLong(next(g));
        if (x == NULL)
            Py_CLEAR(list);
        else
            PyList_SET_ITEM(list, i, x);
    }
    return list;
}

static uint64_t next32(tt_rng *g) { return tt_rng_next32(g); }

/* Generator.permutation(n) as a list, or NULL with an exception. */
static PyObject *permutation(tt_rng *g, Py_ssize_t n) {
    int64_t *order = PyMem_Malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
    if (order == NULL) return PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < n; i++) order[i] = i;
    tt_rng_shuffle(g, order, n, sizeof(int64_t));
    PyObject *list = PyList_New(n);
    for (Py_ssize_t i = 0; list != NULL && i < n; i++) {
        PyObject *x = PyLong_FromLongLong(order[i]);
        if (x == NULL)
            Py_CLEAR(list);
        else
            PyList_SET_ITEM(list, i, x);
    }
    PyMem_Free(order);
    return list;
}

/* random_draws(entropy, ops): see the function's docstring. */
static PyObject *random_draws(PyObject *Py_UNUSED(module), PyObject *args) {
    PyObject *entropy, *ops;
    if (!PyArg_ParseTuple(args, "OO:random_draws", &entropy, &ops)) return NULL;
    tt_rng g;
    if (!seed_from(entropy, &g)) return NULL;
    PyObject *seq = PySequence_Fast(ops, "ops must be a sequence of (kind, n) pairs");
    if (seq == NULL) return NULL;
    const Py_ssize_t count = PySequence_Fast_GET_SIZE(seq);
    PyObject *results = PyList_New(count);
    for (Py_ssize_t i = 0; results != NULL && i < count; i++) {
        PyObject *op = PySequence_Fast_GET_ITEM(seq, i), *n_obj, *result = NULL;
        const char *kind;
        int64_t n;
        if (!PyTuple_Check(op) || !PyArg_ParseTuple(op, "sO", &kind, &n_obj)) {
            PyErr_Format(PyExc_TypeError, "ops[%zd] must be a (kind, n) pair", i);
        } else if (strcmp(kind, "integers") == 0) {
            if (tt_get_int(n_obj, 1, INT64_MAX, &n, "n of integers"))
                result = PyLong_FromLongLong(tt_rng_integers(&g, n));
        } else if (strcmp(kind, "raw") == 0 || strcmp(kind, "next32") == 0 ||
                   strcmp(kind, "permutation") == 0) {
            if (tt_get_int(n_obj, 0, MAX_DRAWS, &n, kind))
                result = kind[0] == 'p'   ? permutation(&g, n)
                         : kind[0] == 'r' ? draw_list(&g, n, tt_rng_next64)
                                          : draw_list(&g, n, next32);
        } else {
            PyErr_Format(PyExc_ValueError,
                         "ops[%zd]: kind must be raw, next32, integers or permutation, got %R", i,
                         PyTuple_GET_ITEM(op, 0));
        }
        if (result == NULL)
            Py_CLEAR(results);
        else
            PyList_SET_ITEM(results, i, result);
    }
    Py_DECREF(seq);
    return results;
}

static PyMethodDef module_methods[] = {
    {"random_draws", random_draws, METH_VARARGS,
     "random_draws(entropy, ops): the draws of the search's random generator (util/rng.h), for "
     "the tests that compare it with numpy: seeded as np.random.default_rng(entropy), then "
     "each op in turn, a (kind, n) pair: ('raw', n) n raw 64-bit draws (bit_generator."
     "random_raw(n)), ('next32', n) n of numpy's next_uint32, ('integers', n) one "
     "Generator.integers(n), ('permutation', n) Generator.permutation(n). Returns a list with "
     "one result per op (a list of ints, or an int for 'integers')."},
    {NULL},
};

/* ------------------------------------------------------------------ module */

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "tt_env.agents._csearch",
    .m_doc = "The search agent's deals and rollouts, compiled: see Searcher.",
    .m_size = -1,
    .m_methods = module_methods,
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
