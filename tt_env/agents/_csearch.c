/* tt_env.agents._csearch: the search agent's deals and rollouts, compiled (search.h, rollout.h).

   Searcher(*, num_players, deck, turn_cap, discard_drawn_upcard, horizon, policy, lookahead,
   feed_cost, wild_feed_cost, candidates, margin, joker_layoff, redemption, false_out_penalty)
   holds the rollouts' settings (the rules the engine plays, who plays how, the
   expected-penalty rule's parameters) and the state of its random generator, numpy's
   (util/rng.h): Searcher.seed(entropy) seeds it as np.random.default_rng(entropy), and every
   Searcher.search(kernel, ...) call after that draws on, so that a search split into several
   calls (tt_env.agents.search checks the clock between them) deals exactly as one call would.
   search() plays its deals from seat 0's view (the searcher's hand, what every seat is known
   to hold and how many cards it holds, the cards it has not seen, the stock's size, the
   discard pile, the melds on the table, the turn) and writes one row of results per deal, one
   column per candidate action. Searcher.play(kernel, ...) plays one round that is wholly given
   (every hand, the stock in order, the table) to its end with the rollouts' policies: what a
   test compares with tt_env.game.Game. Both take the round's solver kernel, and with the joker
   lay-off the same kernel with a leftover joker free (joker_kernel). random_draws(entropy,
   ops) draws from the same generator as numpy's Generator would: what a test compares with
   numpy.

   Nothing reaches the C code unchecked: the arrays through the buffer protocol (element type,
   shape, C order; no numpy at build time), every count and card kind, every meld's fields, the
   seat count, the kernels, the cards in play (no count may overflow, and they must fit the
   engine's stock, discard pile and table), the upcard just taken, and every candidate action,
   which must be legal in the position given. A bad argument raises TypeError or ValueError
   naming it. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "agents/search.h"
#include "game/melds/_csolver.h"
#include "util/pyargs.h"
#include "valuation/_crule.h"

#define MAX_COPIES 255      /* a count of cards in a hand or known to be held (uint8 hands) */
#define MAX_TURN_CAP 10000  /* Rules: MAX_TURNS_PER_ROUND */
#define MAX_DRAWS (1 << 20) /* random_draws(): the numbers one op may draw */
#define MAX_FALSE_OUT 1000  /* Rules: MAX_PENALTY */

/* ------------------------------------------------------------------ Searcher */

typedef struct {
    PyObject_HEAD
    tt_searcher T;
} SearcherObject;

static PyObject *Searcher_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    static char *names[] = {
        "num_players", "deck",         "turn_cap",   "discard_drawn_upcard", "horizon",
        "policy",      "lookahead",    "feed_cost",  "wild_feed_cost",       "candidates",
        "margin",      "joker_layoff", "redemption", "false_out_penalty",    NULL};
    PyObject *players, *deck, *turn_cap, *horizon, *policy, *params[5], *false_out;
    int ddu, joker_layoff, redemption;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "$OOOpOOOOOOOppO:Searcher", names, &players, &deck,
                                     &turn_cap, &ddu, &horizon, &policy, &params[0], &params[1],
                                     &params[2], &params[3], &params[4], &joker_layoff, &redemption,
                                     &false_out))
        return NULL;
    SearcherObject *self = (SearcherObject *)type->tp_alloc(type, 0);
    if (self == NULL) return NULL;
    tt_rollouts *set = &self->T.set;
    int64_t n, cap, false_out_penalty = -1, policies[TT_MAX_SEATS];
    if (!tt_get_int(players, 2, TT_MAX_SEATS, &n, "num_players") ||
        !tt_get_int(turn_cap, 1, MAX_TURN_CAP, &cap, "turn_cap") ||
        !tt_get_int(horizon, 0, INT32_MAX, &set->horizon, "horizon") ||
        !tt_get_ints(deck, 53, 0, MAX_COPIES, set->deck, "deck") ||
        !tt_get_ints(policy, n, TT_GREEDY, TT_COUNTING, policies,
                     "policy (one per seat: 0 greedy, 1 counting)") ||
        (false_out != Py_None && !tt_get_int(false_out, 0, MAX_FALSE_OUT, &false_out_penalty,
                                             "false_out_penalty (or None)")) ||
        !tt_get_rule(params, ddu, &set->rule)) {
        Py_DECREF(self);
        return NULL;
    }
    for (int64_t s = 0; s < n; s++) set->policy[s] = (int)policies[s];
    /* the engine's rules: the one round searched (its wild rank set by each call), scored
       once; the decks are read from `deck` (the engine deals nothing here) */
    set->rules = (tt_rules){
        .num_players = (int)n,
        .decks = 1,
        .num_rounds = 1,
        .cards_dealt = {7},
        .wild_rank = {1},
        .multiplier = {1},
        .turn_cap = (int)cap,
        .discard_drawn_upcard = ddu != 0,
        .redemption = redemption != 0,
        .joker_layoff = joker_layoff != 0,
        .false_out_penalty = (int)false_out_penalty,
    };
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

/* The round's kernels into the searcher's rollouts (and the rules' wild rank), or 0 with an
   exception: `kernel` of the round's configuration, `joker_kernel` the same with a leftover
   joker free, given with the joker lay-off and only then. */
static int set_kernels(tt_searcher *T, PyObject *kernel, PyObject *joker_kernel) {
    tt_KernelObject *k = tt_kernel_of(kernel, "kernel");
    if (k == NULL) return 0;
    const tt_solver *S = &k->s, *J = NULL;
    if (joker_kernel != Py_None) {
        if (!T->set.rules.joker_layoff) {
            PyErr_SetString(PyExc_ValueError,
                            "joker_kernel is for the joker lay-off only: None without it");
            return 0;
        }
        tt_KernelObject *j = tt_kernel_of(joker_kernel, "joker_kernel");
        if (j == NULL) return 0;
        J = &j->s;
        if (J->w != S->w || J->par[52] != 0 || J->par[TT_P_TOP] != S->par[TT_P_TOP] ||
            J->par[TT_P_CAP] != S->par[TT_P_CAP] ||
            J->par[TT_P_ALL_WILD] != S->par[TT_P_ALL_WILD]) {
            PyErr_SetString(
                PyExc_ValueError,
                "joker_kernel must be kernel's configuration with a joker penalty of 0");
            return 0;
        }
    } else if (T->set.rules.joker_layoff) {
        PyErr_SetString(PyExc_ValueError,
                        "joker_kernel (the kernel with a leftover joker free) is needed with the "
                        "joker lay-off");
        return 0;
    }
    T->set.rules.wild_rank[0] = (int)S->w + 1;
    tt_rollout_room_init(&T->room, &T->set.rules, S, J);
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

/* The melds on the table: rows of MELD_FIELDS (seat, kind, rank, suit, low, high, wilds,
   size) and their cards, meld after meld. */
enum { MELD_FIELDS = 8 };
typedef struct {
    Py_buffer views[2]; /* melds, table_cards */
} table_arrays;

/* Take the table's arrays, checked, or 0 with an exception and none held. */
static int get_table(PyObject *melds, PyObject *cards, table_arrays *t) {
    PyObject *objs[2] = {melds, cards};
    const array_spec spec[2] = {{"melds", "i", 8, 2, {-1, MELD_FIELDS}, 0},
                                {"table_cards", "i", 8, 1, {-1}, 0}};
    return get_views(objs, t->views, spec, 2);
}

static void release_table(table_arrays *t) { release_views(t->views, 2); }

/* The table's melds into g's table, checked, or 0 with a ValueError. counts[k] gets the
   table's copies of each kind. */
static int set_table(tt_game *g, const table_arrays *t, int64_t *counts) {
    static const char *const field[MELD_FIELDS] = {"seat", "kind", "rank",  "suit",
                                                   "low",  "high", "wilds", "size"};
    const int64_t low[MELD_FIELDS] = {0, 0, 0, -1, 0, 0, 0, 1};
    const int64_t high[MELD_FIELDS] = {
        g->rules->num_players - 1, 2, 13, 3, 14, 14, TT_DECK_MAX, TT_DECK_MAX};
    memset(counts, 0, 53 * sizeof *counts);
    const Py_ssize_t m = t->views[0].shape[0], ncards = t->views[1].shape[0];
    const int64_t *row = t->views[0].buf, *card = t->views[1].buf;
    if (m > TT_MAX_TABLE || ncards > TT_DECK_MAX) {
        PyErr_Format(PyExc_ValueError,
                     "melds, table_cards: %zd melds of %zd cards on the table, more than %d melds "
                     "or %d cards",
                     m, ncards, TT_MAX_TABLE, TT_DECK_MAX);
        return 0;
    }
    if (!tt_check_values(card, ncards, 0, 52, "table_cards (card kinds)")) return 0;
    int64_t total = 0;
    for (Py_ssize_t i = 0; i < m; i++, row += MELD_FIELDS) {
        for (int f = 0; f < MELD_FIELDS; f++) {
            if (row[f] < low[f] || row[f] > high[f]) {
                PyErr_Format(PyExc_ValueError, "melds[%zd]: its %s (%lld) is not in %lld..%lld", i,
                             field[f], (long long)row[f], (long long)low[f], (long long)high[f]);
                return 0;
            }
        }
        if (row[6] > row[7]) {
            PyErr_Format(PyExc_ValueError, "melds[%zd]: more wilds than cards", i);
            return 0;
        }
        g->table.seat[i] = (int8_t)row[0];
        g->table.shape[i] = (tt_shape){(int8_t)row[1], (int8_t)row[2], (int8_t)row[3],
                                       (int8_t)row[4], (int8_t)row[5], (int16_t)row[6],
                                       (int16_t)row[7]};
        for (int64_t j = 0; j < row[7] && total + j < ncards; j++)
            g->table.meld_of[total + j] = (uint8_t)i;
        total += row[7];
    }
    if (total != ncards) {
        PyErr_Format(PyExc_ValueError,
                     "table_cards: %zd cards, but the melds' sizes add up to %lld", ncards,
                     (long long)total);
        return 0;
    }
    g->table.count = (int)m;
    g->table.ncards = (int)ncards;
    for (Py_ssize_t i = 0; i < ncards; i++) {
        g->table.card[i] = (uint8_t)card[i];
        counts[card[i]] += 1;
    }
    return 1;
}

/* Whether the cards in play fit: per kind, held[k] copies at most most[k] (the deck's, or
   NULL: MAX_COPIES, so that no count overflows), and all of them at most the engine's
   TT_DECK_MAX; else 0 with a ValueError naming `what`. */
static int check_cards(const int64_t *most, const int64_t *held, const char *what) {
    int64_t cards = 0;
    for (int k = 0; k < 53; k++) {
        const int64_t limit = most != NULL ? most[k] : MAX_COPIES;
        if (held[k] > limit) {
            PyErr_Format(
                PyExc_ValueError, "%s hold %lld copies of card kind %d, more than the %s %lld",
                what, (long long)held[k], k, most != NULL ? "deck's" : "most of", (long long)limit);
            return 0;
        }
        cards += held[k];
    }
    if (cards > TT_DECK_MAX) {
        PyErr_Format(PyExc_ValueError, "%s hold %lld cards, more than the %d a round has at most",
                     what, (long long)cards, TT_DECK_MAX);
        return 0;
    }
    return 1;
}

/* The scalars of a position into g (the seat to move set by the caller), or 0 with an
   exception: the phase, the upcard just taken (-1 in the draw phase, else a card the seat to
   move holds), the seat that went out, the turns played. */
static int set_turn(tt_game *g, int draw_phase, PyObject *drawn, PyObject *went_out,
                    PyObject *turns) {
    int64_t d, w, t;
    if (!tt_get_int(drawn, -1, 52, &d, "drawn_upcard") ||
        !tt_get_int(went_out, -1, g->rules->num_players - 1, &w, "went_out") ||
        !tt_get_int(turns, 0, g->rules->turn_cap, &t, "turns"))
        return 0;
    if (d >= 0 && (draw_phase || !g->hands[g->current][d])) {
        PyErr_SetString(PyExc_ValueError,
                        "drawn_upcard must be -1 in the draw phase, else a card the seat to move "
                        "holds");
        return 0;
    }
    g->phase = draw_phase ? TT_DRAW : TT_DISCARD;
    g->drawn_upcard = (int)d;
    g->went_out = (int)w;
    g->turns = (int)t;
    return 1;
}

/* The cards dealt to the stock by tt_determinise(): the seats' missing cards come first. */
static int64_t stock_dealt(const tt_game *start, const tt_hidden *hidden) {
    int64_t total = 0, needed = 0;
    for (int k = 0; k < 53; k++) total += hidden->unseen[k];
    for (int s = 1; s < start->rules->num_players; s++) {
        int64_t held = 0;
        for (int k = 0; k < 53; k++) held += start->taken[s][k];
        if (hidden->sizes[s] > held) needed += hidden->sizes[s] - held;
    }
    int64_t left = total - (needed < total ? needed : total);
    return hidden->stock_size < left ? hidden->stock_size : left;
}

/* Whether every candidate action is legal at the start (a draw in the draw phase: from a
   stock that the deal fills or the pile rebuilds, or the top discard; in the discard phase a
   discard of a card held that may be discarded), else 0 with a ValueError. */
static int check_actions(const tt_searcher *T, const int64_t *actions, Py_ssize_t nact) {
    const tt_game *start = &T->start;
    const int draw = start->phase == TT_DRAW;
    int64_t nstock = stock_dealt(start, &T->hidden);
    for (Py_ssize_t a = 0; a < nact; a++) {
        int64_t act = actions[a], k = (act - TT_ACT_DISCARD) % 53;
        const char *bad = NULL;
        if (act < 0 || act >= TT_ACTIONS)
            bad = "is not an action id";
        else if ((act == TT_ACT_DRAW_STOCK || act == TT_ACT_TAKE_DISCARD) != draw)
            bad = draw ? "is not a draw (the draw phase)" : "is a draw (the discard phase)";
        else if (act == TT_ACT_DRAW_STOCK && nstock == 0 && start->npile < 2)
            bad = "draws from an empty stock that the discard pile cannot rebuild";
        else if (act == TT_ACT_TAKE_DISCARD && start->npile == 0)
            bad = "takes from an empty discard pile";
        else if (act >= TT_ACT_DISCARD && !start->hands[0][k])
            bad = "discards a card the hand does not hold";
        else if (act >= TT_ACT_DISCARD && !tt_may_discard(start, (int)k))
            bad = "discards the upcard just taken, which may not go straight back";
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

/* Check the arrays' values and set the searcher's start position from them, or 0 with a
   ValueError. */
static int set_start(tt_searcher *T, const Py_buffer *views, const table_arrays *table) {
    const int n = T->set.rules.num_players;
    const uint8_t *hand = views[HAND].buf;
    const int64_t *known = views[KNOWN].buf, *unseen = views[UNSEEN].buf, *pile = views[PILE].buf;
    const Py_ssize_t npile = views[PILE].shape[0];
    tt_game *start = &T->start;
    int64_t held[53];
    if (!tt_check_values(known, n * 53, 0, MAX_COPIES, "known") ||
        !tt_check_values(views[SIZES].buf, n, 0, TT_DECK_MAX, "sizes") ||
        !tt_check_values(unseen, 53, 0, TT_DECK_MAX, "unseen") ||
        !tt_check_values(pile, npile, 0, 52, "pile (card kinds)") || !set_table(start, table, held))
        return 0;
    /* no count may overflow, and every card in play must fit the engine's stock, discard pile
       and table: the cards only move between the hands, the stock, the pile and the table */
    for (int k = 0; k < 53; k++) held[k] += hand[k] + unseen[k];
    for (int i = 53; i < n * 53; i++) held[i % 53] += known[i];
    for (Py_ssize_t i = 0; i < npile; i++) held[pile[i]] += 1;
    if (!check_cards(NULL, held,
                     "the hand, the other seats' known cards, the unseen cards, the discard pile "
                     "and the table"))
        return 0;
    memset(start->hands, 0, sizeof start->hands);
    memcpy(start->hands[0], hand, 53);
    for (int i = 0; i < n * 53; i++) start->taken[i / 53][i % 53] = (uint8_t)known[i];
    memcpy(T->hidden.sizes, views[SIZES].buf, (size_t)n * sizeof(int64_t));
    memcpy(T->hidden.unseen, unseen, 53 * sizeof(int64_t));
    for (Py_ssize_t i = 0; i < npile; i++) start->pile[i] = (uint8_t)pile[i];
    start->npile = (int)npile;
    start->nstock = 0; /* the deal fills it */
    start->current = 0;
    return 1;
}

/* search(kernel, *, joker_kernel, hand, known, sizes, unseen, stock_size, pile, melds,
   table_cards, draw_phase, drawn_upcard, went_out, turns, actions, results): see the method's
   docstring. */
static PyObject *Searcher_search(SearcherObject *self, PyObject *args, PyObject *kwds) {
    static char *names[] = {"kernel",      "hand",    "known",      "sizes",        "unseen",
                            "stock_size",  "pile",    "draw_phase", "drawn_upcard", "went_out",
                            "turns",       "actions", "results",    "joker_kernel", "melds",
                            "table_cards", NULL};
    PyObject *kernel, *objs[NUM_ARRAYS], *stock_size, *drawn, *went_out, *turns;
    PyObject *joker_kernel, *melds, *table_cards;
    int draw_phase;
    if (!PyArg_ParseTupleAndKeywords(
            args, kwds, "O$OOOOOOpOOOOOOOO:search", names, &kernel, &objs[HAND], &objs[KNOWN],
            &objs[SIZES], &objs[UNSEEN], &stock_size, &objs[PILE], &draw_phase, &drawn, &went_out,
            &turns, &objs[ACTIONS], &objs[RESULTS], &joker_kernel, &melds, &table_cards))
        return NULL;
    tt_searcher *T = &self->T;
    if (!set_kernels(T, kernel, joker_kernel) ||
        !tt_get_int(stock_size, 0, TT_DECK_MAX, &T->hidden.stock_size, "stock_size"))
        return NULL;
    Py_buffer views[NUM_ARRAYS];
    table_arrays table;
    if (!get_arrays(objs, views, T->set.rules.num_players)) return NULL;
    if (!get_table(melds, table_cards, &table)) {
        release_views(views, NUM_ARRAYS);
        return NULL;
    }
    T->start.rules = &T->set.rules;
    const Py_ssize_t nact = views[ACTIONS].shape[0];
    int ok = set_start(T, views, &table) &&
             set_turn(&T->start, draw_phase, drawn, went_out, turns) &&
             check_actions(T, views[ACTIONS].buf, nact);
    if (ok) tt_search(T, views[ACTIONS].buf, nact, views[RESULTS].shape[0], views[RESULTS].buf);
    release_views(views, NUM_ARRAYS);
    release_table(&table);
    if (!ok) return NULL;
    Py_RETURN_NONE;
}

/* play(kernel, *, joker_kernel, hands, known, stock, pile, melds, table_cards, current,
   draw_phase, drawn_upcard, went_out, turns, out): see the method's docstring. */
static PyObject *Searcher_play(SearcherObject *self, PyObject *args, PyObject *kwds) {
    static char *names[] = {"kernel",  "hands",        "known",        "stock",       "pile",
                            "current", "draw_phase",   "drawn_upcard", "went_out",    "turns",
                            "out",     "joker_kernel", "melds",        "table_cards", NULL};
    enum { P_HANDS, P_KNOWN, P_STOCK, P_PILE, P_OUT, P_ARRAYS };
    PyObject *kernel, *objs[P_ARRAYS], *current, *drawn, *went_out, *turns;
    PyObject *joker_kernel, *melds, *table_cards;
    int draw_phase;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O$OOOOOpOOOOOOO:play", names, &kernel,
                                     &objs[P_HANDS], &objs[P_KNOWN], &objs[P_STOCK], &objs[P_PILE],
                                     &current, &draw_phase, &drawn, &went_out, &turns, &objs[P_OUT],
                                     &joker_kernel, &melds, &table_cards))
        return NULL;
    tt_searcher *T = &self->T;
    if (!set_kernels(T, kernel, joker_kernel)) return NULL;
    const int n = T->set.rules.num_players;
    tt_game *g = &T->play;
    memset(g, 0, sizeof *g);
    g->rules = &T->set.rules;
    int64_t seat;
    if (!tt_get_int(current, 0, n - 1, &seat, "current")) return NULL;
    g->current = (int)seat;
    const array_spec spec[P_ARRAYS] = {
        [P_HANDS] = {"hands", "u", 1, 2, {n, 53}, 0}, [P_KNOWN] = {"known", "i", 8, 2, {n, 53}, 0},
        [P_STOCK] = {"stock", "i", 8, 1, {-1}, 0},    [P_PILE] = {"pile", "i", 8, 1, {-1}, 0},
        [P_OUT] = {"out", "i", 8, 1, {n}, 1},
    };
    Py_buffer views[P_ARRAYS];
    table_arrays table;
    if (!get_views(objs, views, spec, P_ARRAYS)) return NULL;
    if (!get_table(melds, table_cards, &table)) {
        release_views(views, P_ARRAYS);
        return NULL;
    }
    const uint8_t *hands = views[P_HANDS].buf;
    const int64_t *known = views[P_KNOWN].buf, *stock = views[P_STOCK].buf;
    const int64_t *pile = views[P_PILE].buf;
    const Py_ssize_t nstock = views[P_STOCK].shape[0], npile = views[P_PILE].shape[0];
    int64_t held[53];
    int ok = tt_check_values(known, n * 53, 0, MAX_COPIES, "known") &&
             tt_check_values(stock, nstock, 0, 52, "stock (card kinds)") &&
             tt_check_values(pile, npile, 0, 52, "pile (card kinds)") && set_table(g, &table, held);
    if (ok) {
        /* every copy of a kind is in a hand, the stock, the pile or on the table: no more
           than the deck holds (so that no count overflows and the engine holds every card) */
        for (int i = 0; i < n * 53; i++) held[i % 53] += hands[i];
        for (Py_ssize_t i = 0; i < nstock; i++) held[stock[i]] += 1;
        for (Py_ssize_t i = 0; i < npile; i++) held[pile[i]] += 1;
        ok = check_cards(T->set.deck, held, "the hands, the stock, the pile and the table");
    }
    if (ok) {
        memcpy(g->hands, hands, (size_t)(n * 53));
        ok = set_turn(g, draw_phase, drawn, went_out, turns);
    }
    if (ok) {
        for (int i = 0; i < n * 53; i++) g->taken[i / 53][i % 53] = (uint8_t)known[i];
        for (Py_ssize_t i = 0; i < nstock; i++) g->stock[i] = (uint8_t)stock[i];
        for (Py_ssize_t i = 0; i < npile; i++) g->pile[i] = (uint8_t)pile[i];
        g->nstock = (int)nstock;
        g->npile = (int)npile;
        tt_rollout_settle(&T->room, g);
        g->rebuild_rng = T->random;
        tt_rollout(&T->room, &T->set, g, 0, views[P_OUT].buf);
        T->random = g->rebuild_rng;
    }
    release_views(views, P_ARRAYS);
    release_table(&table);
    if (!ok) return NULL;
    Py_RETURN_NONE;
}

static PyMethodDef Searcher_methods[] = {
    {"seed", (PyCFunction)Searcher_seed, METH_O,
     "seed(entropy): seed the random generator of the deals and stock rebuilds as "
     "np.random.default_rng(entropy) (an integer 0..2**64-1, or a sequence of at most 8)."},
    {"search", (PyCFunction)(void (*)(void))Searcher_search, METH_VARARGS | METH_KEYWORDS,
     "search(kernel, *, hand, known, sizes, unseen, stock_size, pile, draw_phase, drawn_upcard, "
     "went_out, turns, actions, results, joker_kernel, melds, table_cards): play len(results) "
     "deals, each candidate action (0 stock, 1 take, 2 + k discard k) on every deal, and roll "
     "the round out on the game engine; results[i, a] is seat 0's penalty less the mean of the "
     "others' on deal i after action a (lower is better).\n\nkernel: the solver Kernel of the "
     "round's wild rank; hand: seat 0's counts (53 uint8); known: (seats, 53) int64, what each "
     "seat is known to hold; sizes: the cards each seat holds (int64); unseen: the copies seat 0 "
     "has not seen (53 int64); stock_size; pile: the discard pile's card kinds, top last "
     "(int64); draw_phase, drawn_upcard (-1: none), went_out (the seat that went out, -1: none), "
     "turns (played this round); actions (int64); results: (deals, len(actions)) float64, "
     "written; joker_kernel: with the joker lay-off, the kernel with a leftover joker free, "
     "else None; melds: (melds, 8) int64, per meld on the table its seat, kind (0 set, 1 run, "
     "2 wild cards), rank, suit, low, high, wilds and size; table_cards: their card kinds, meld "
     "after meld (int64)."},
    {"play", (PyCFunction)(void (*)(void))Searcher_play, METH_VARARGS | METH_KEYWORDS,
     "play(kernel, *, hands, known, stock, pile, current, draw_phase, drawn_upcard, went_out, "
     "turns, out, joker_kernel, melds, table_cards): play a round that is wholly given to its "
     "end on the game engine, each seat with its rollout policy (a stock rebuild shuffles with "
     "the random generator); out[s] is seat s's points then (not doubled, no false outs).\n\n"
     "hands: (seats, 53) uint8; known: (seats, 53) int64, what each seat is known to hold; "
     "stock: the stock's card kinds, the next one drawn last (int64); pile: the discard pile's, "
     "top last (int64); current: the seat to move; draw_phase, drawn_upcard (-1: none), "
     "went_out (-1: none; the seats from the one after it to the one before `current` have had "
     "their final turn), turns (played this round); out: (seats,) int64, written; "
     "joker_kernel, melds, table_cards: as search()'s."},
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
        PyModule_AddIntConstant(m, "CARDS_IN_PLAY", TT_DECK_MAX) < 0) {
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
