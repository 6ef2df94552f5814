/* A game's state (game/core/game.h) as Python values and back, for tt_env.game._ccore: what a
   Game shows of itself (hands, stock, discard pile, table, the last move and the round that
   ended), what it pickles, and what Game.arrange sets.

   state_dict() writes every field of a tt_game into a dict; state_read() reads such a dict into
   a tt_game, every value checked as it is read (types, lengths, card kinds) and the whole state
   then by tt_game_check() (check.h), so that the engine only ever plays on a state it can. */

#ifndef TT_GAME_STATE_H
#define TT_GAME_STATE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "game/_service.h"
#include "game/core/check.h"
#include "util/pyargs.h"

/* ------------------------------------------------------------------ to Python */

static PyObject *tt_int_list(const int64_t *values, int n) {
    PyObject *list = PyList_New(n);
    if (list == NULL) return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *v = PyLong_FromLongLong(values[i]);
        if (v == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, v);
    }
    return list;
}

static PyObject *tt_small_int_list(const int *values, int n) {
    int64_t wide[TT_MAX_SEATS] = {0};
    for (int i = 0; i < n; i++) wide[i] = values[i];
    return tt_int_list(wide, n);
}

/* Per seat, 53 counts as bytes. */
static PyObject *tt_rows_list(const uint8_t (*rows)[TT_KINDS], int n) {
    PyObject *list = PyList_New(n);
    if (list == NULL) return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *b = PyBytes_FromStringAndSize((const char *)rows[i], TT_KINDS);
        if (b == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, b);
    }
    return list;
}

/* The cards of table meld m in order (at most `limit`), into cards; how many. */
static int tt_meld_cards(const tt_table *t, int m, int limit, uint8_t *cards) {
    int n = 0;
    for (int i = 0; i < t->ncards && n < limit; i++)
        if (t->meld_of[i] == m) cards[n++] = t->card[i];
    return n;
}

/* Table meld m as (seat, cards, shape, shape as laid down). */
static PyObject *tt_meld_tuple(const tt_table *t, int m) {
    uint8_t cards[TT_DECK_MAX];
    int n = tt_meld_cards(t, m, TT_DECK_MAX, cards);
    return Py_BuildValue("(iy#NN)", t->seat[m], (const char *)cards, (Py_ssize_t)n,
                         shape_tuple(&t->shape[m]), shape_tuple(&t->laid[m]));
}

/* The melds of the table, [first, first + count), as tt_meld_tuple()s. */
static PyObject *tt_melds_list(const tt_table *t, int first, int count) {
    PyObject *list = PyList_New(count);
    if (list == NULL) return NULL;
    for (int m = 0; m < count; m++) {
        PyObject *item = tt_meld_tuple(t, first + m);
        if (item == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, m, item);
    }
    return list;
}

/* The state as a dict, every field of the game (see state_read). */
static PyObject *state_dict(const tt_game *g) {
    const int n = g->rules->num_players;
    const tt_rng *rng = &g->rebuild_rng;
    PyObject *d = Py_BuildValue(
        "{s:K,s:i,s:i,s:i,s:i,s:N,s:N,s:N,s:y#,s:y#,s:N,s:i,s:i,s:N,s:i,s:N,s:N,s:N,s:N}", "seed",
        (unsigned long long)g->seed, "first_dealer", g->first_dealer, "round_index", g->round_index,
        "phase", g->phase, "current", g->current, "scores", tt_int_list(g->scores, n), "hands",
        tt_rows_list((const uint8_t(*)[TT_KINDS])g->hands, n), "taken",
        tt_rows_list((const uint8_t(*)[TT_KINDS])g->taken, n), "stock", (const char *)g->stock,
        (Py_ssize_t)g->nstock, "discard_pile", (const char *)g->pile, (Py_ssize_t)g->npile, "table",
        tt_melds_list(&g->table, 0, g->table.count), "drawn_upcard", g->drawn_upcard, "went_out",
        g->went_out, "false_outs", tt_int_list(g->false_outs, n), "turns", g->turns, "scored",
        tt_small_int_list(g->scored, n), "scored_points", tt_int_list(g->scored_points, n),
        "scored_first", tt_small_int_list(g->scored_first, n), "scored_count",
        tt_small_int_list(g->scored_count, n));
    if (d == NULL) return NULL;
    PyObject *more = Py_BuildValue(
        "{s:(KKKKiI),s:i,s:N,s:N,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i}", "rng",
        (unsigned long long)rng->state.hi, (unsigned long long)rng->state.lo,
        (unsigned long long)rng->inc.hi, (unsigned long long)rng->inc.lo, (int)rng->has_uint32,
        (unsigned int)rng->uinteger, "ended_by", g->ended_by, "last_penalties",
        tt_int_list(g->last_penalties, n), "last_deadwood", tt_int_list(g->last_deadwood, n),
        "rounds_played", g->rounds_played, "last_seat", g->last_seat, "last_card", g->last_card,
        "last_known", g->last_known, "last_stock", g->last_stock, "last_turns", g->last_turns,
        "last_next", g->last_next, "last_rebuilt", g->last_rebuilt, "last_went_out",
        g->last_went_out, "last_false_out", g->last_false_out, "last_laid", g->last_laid,
        "last_round_ended", g->last_round_ended);
    if (more == NULL || PyDict_Update(d, more) < 0) {
        Py_XDECREF(more);
        Py_DECREF(d);
        return NULL;
    }
    Py_DECREF(more);
    return d;
}

/* ------------------------------------------------------------------ from Python */

/* d[key], borrowed, or NULL with a KeyError naming it. */
static PyObject *tt_item(PyObject *d, const char *key) {
    PyObject *value = PyDict_GetItemString(d, key);
    if (value == NULL) PyErr_Format(PyExc_KeyError, "a game state needs %s", key);
    return value;
}

static int tt_read_int(PyObject *d, const char *key, int64_t lo, int64_t hi, int *out) {
    PyObject *value = tt_item(d, key);
    int64_t v;
    if (value == NULL || !tt_get_int(value, lo, hi, &v, key)) return 0;
    *out = (int)v;
    return 1;
}

static int tt_read_ints(PyObject *d, const char *key, int n, int64_t lo, int64_t hi, int64_t *out) {
    PyObject *value = tt_item(d, key);
    return value != NULL && tt_get_ints(value, n, lo, hi, out, key);
}

static int tt_read_small_ints(PyObject *d, const char *key, int n, int64_t lo, int64_t hi,
                              int *out) {
    int64_t wide[TT_MAX_SEATS] = {0};
    if (!tt_read_ints(d, key, n, lo, hi, wide)) return 0;
    for (int i = 0; i < n; i++) out[i] = (int)wide[i];
    return 1;
}

/* Bytes of card kinds (at most `room`) into out, their number into *count. */
static int tt_read_cards(PyObject *value, const char *what, uint8_t *out, int room, int *count) {
    if (!PyBytes_Check(value)) {
        PyErr_Format(PyExc_TypeError, "%s must be bytes of card kinds", what);
        return 0;
    }
    Py_ssize_t size = PyBytes_GET_SIZE(value);
    const uint8_t *data = (const uint8_t *)PyBytes_AS_STRING(value);
    if (size > room) {
        PyErr_Format(PyExc_ValueError, "%s holds %zd cards, more than %d", what, size, room);
        return 0;
    }
    for (Py_ssize_t i = 0; i < size; i++) {
        if (data[i] >= TT_KINDS) {
            PyErr_Format(PyExc_ValueError, "%s holds %d, no card kind", what, data[i]);
            return 0;
        }
        out[i] = data[i];
    }
    *count = (int)size;
    return 1;
}

/* Per seat, 53 counts as bytes. */
static int tt_read_rows(PyObject *d, const char *key, int n, uint8_t (*rows)[TT_KINDS]) {
    PyObject *value = tt_item(d, key);
    if (value == NULL) return 0;
    if (!PyList_Check(value) || PyList_GET_SIZE(value) != n) {
        PyErr_Format(PyExc_ValueError, "%s must be a list of %d rows of counts", key, n);
        return 0;
    }
    memset(rows, 0, sizeof(uint8_t[TT_KINDS]) * TT_MAX_SEATS);
    for (int s = 0; s < n; s++) {
        PyObject *row = PyList_GET_ITEM(value, s);
        if (!PyBytes_Check(row) || PyBytes_GET_SIZE(row) != TT_KINDS) {
            PyErr_Format(PyExc_ValueError, "%s: each row must be %d bytes", key, TT_KINDS);
            return 0;
        }
        memcpy(rows[s], PyBytes_AS_STRING(row), TT_KINDS);
    }
    return 1;
}

/* A shape from a 7-tuple (kind, rank, suit, low, high, wilds, size), checked. */
static int tt_read_shape(PyObject *obj, tt_shape *shape) {
    int64_t v[7];
    if (!PyTuple_Check(obj) || !tt_get_ints(obj, 7, -1, TT_DECK_MAX, v, "a meld shape")) return 0;
    for (int i = 0; i < 5; i++) { /* the byte-sized fields, before they are narrowed */
        if (v[i] > 14) {
            PyErr_SetString(PyExc_ValueError, "a meld shape is out of range");
            return 0;
        }
    }
    *shape = (tt_shape){(int8_t)v[0], (int8_t)v[1],  (int8_t)v[2], (int8_t)v[3],
                        (int8_t)v[4], (int16_t)v[5], (int16_t)v[6]};
    if (!tt_shape_ok(shape)) {
        PyErr_SetString(PyExc_ValueError, "a meld shape is out of range");
        return 0;
    }
    return 1;
}

/* The table: a list of (seat, cards, shape, shape as laid down). */
static int tt_read_table(PyObject *d, int n, tt_table *t) {
    PyObject *value = tt_item(d, "table");
    if (value == NULL) return 0;
    if (!PyList_Check(value) || PyList_GET_SIZE(value) > TT_MAX_TABLE) {
        PyErr_Format(PyExc_ValueError, "table must be a list of at most %d melds", TT_MAX_TABLE);
        return 0;
    }
    t->count = (int)PyList_GET_SIZE(value);
    t->ncards = 0;
    for (int m = 0; m < t->count; m++) {
        PyObject *meld = PyList_GET_ITEM(value, m);
        int64_t seat;
        if (!PyTuple_Check(meld) || PyTuple_GET_SIZE(meld) != 4) {
            PyErr_SetString(PyExc_ValueError, "a table meld is (seat, cards, shape, laid shape)");
            return 0;
        }
        if (!tt_get_int(PyTuple_GET_ITEM(meld, 0), 0, n - 1, &seat, "a table meld's seat") ||
            !tt_read_shape(PyTuple_GET_ITEM(meld, 2), &t->shape[m]) ||
            !tt_read_shape(PyTuple_GET_ITEM(meld, 3), &t->laid[m]))
            return 0;
        t->seat[m] = (int8_t)seat;
        int count;
        if (!tt_read_cards(PyTuple_GET_ITEM(meld, 1), "a table meld", t->card + t->ncards,
                           TT_DECK_MAX - t->ncards, &count))
            return 0;
        memset(t->meld_of + t->ncards, m, (size_t)count);
        t->ncards += count;
    }
    return 1;
}

/* The stock rebuilds' random stream: (state hi, lo, inc hi, lo, has_uint32, uinteger). */
static int tt_read_rng(PyObject *d, tt_rng *rng) {
    PyObject *value = tt_item(d, "rng");
    unsigned long long w[4];
    int has;
    unsigned int half;
    if (value == NULL) return 0;
    if (!PyTuple_Check(value) || PyTuple_GET_SIZE(value) != 6) {
        PyErr_SetString(PyExc_ValueError, "rng must be (4 words, has_uint32, uinteger)");
        return 0;
    }
    if (!PyArg_ParseTuple(value, "KKKKpI:rng", &w[0], &w[1], &w[2], &w[3], &has, &half)) return 0;
    *rng = (tt_rng){{w[0], w[1]}, {w[2], w[3]}, has != 0, half};
    return 1;
}

/* The whole state from a dict (state_dict's keys) into g, whose rules are set; then checked.
   0 with an exception if anything is missing, malformed or out of place. */
static int state_read(PyObject *d, tt_game *g) {
    if (!PyDict_Check(d)) {
        PyErr_SetString(PyExc_TypeError, "a game state is a dict");
        return 0;
    }
    const int n = g->rules->num_players;
    const int64_t big = TT_MAX_POINTS;
    PyObject *seed = tt_item(d, "seed");
    if (seed == NULL) return 0;
    g->seed = PyLong_AsUnsignedLongLong(seed);
    if (PyErr_Occurred()) return 0;
    const int cap = g->rules->turn_cap + n;
    int stock_n, pile_n;
    PyObject *stock = tt_item(d, "stock"), *pile = tt_item(d, "discard_pile");
    int ok = stock != NULL && pile != NULL &&
             tt_read_int(d, "first_dealer", 0, n - 1, &g->first_dealer) &&
             tt_read_int(d, "round_index", 0, g->rules->num_rounds - 1, &g->round_index) &&
             tt_read_int(d, "phase", TT_DRAW, TT_ROUND_OVER, &g->phase) &&
             tt_read_int(d, "current", 0, n - 1, &g->current) &&
             tt_read_ints(d, "scores", n, -big, big, g->scores) &&
             tt_read_rows(d, "hands", n, g->hands) && tt_read_rows(d, "taken", n, g->taken) &&
             tt_read_cards(stock, "stock", g->stock, TT_DECK_MAX, &stock_n) &&
             tt_read_cards(pile, "discard_pile", g->pile, TT_DECK_MAX, &pile_n) &&
             tt_read_table(d, n, &g->table) &&
             tt_read_int(d, "drawn_upcard", -1, TT_KINDS - 1, &g->drawn_upcard) &&
             tt_read_int(d, "went_out", -1, n - 1, &g->went_out) &&
             tt_read_ints(d, "false_outs", n, 0, big, g->false_outs) &&
             tt_read_int(d, "turns", 0, cap, &g->turns) &&
             tt_read_small_ints(d, "scored", n, 0, 1, g->scored) &&
             tt_read_ints(d, "scored_points", n, 0, big, g->scored_points) &&
             tt_read_small_ints(d, "scored_first", n, 0, TT_MAX_TABLE, g->scored_first) &&
             tt_read_small_ints(d, "scored_count", n, 0, TT_MAX_TABLE, g->scored_count) &&
             tt_read_rng(d, &g->rebuild_rng) &&
             tt_read_int(d, "ended_by", TT_NOT_ENDED, TT_ENDED_NO_CARDS, &g->ended_by) &&
             tt_read_ints(d, "last_penalties", n, 0, big, g->last_penalties) &&
             tt_read_ints(d, "last_deadwood", n, 0, big, g->last_deadwood) &&
             tt_read_int(d, "rounds_played", 0, 1 << 30, &g->rounds_played) &&
             tt_read_int(d, "last_seat", -1, n - 1, &g->last_seat) &&
             tt_read_int(d, "last_card", -1, TT_KINDS - 1, &g->last_card) &&
             tt_read_int(d, "last_known", 0, TT_MAX_COPIES, &g->last_known) &&
             tt_read_int(d, "last_stock", 0, TT_DECK_MAX, &g->last_stock) &&
             tt_read_int(d, "last_turns", 0, cap, &g->last_turns) &&
             tt_read_int(d, "last_next", -1, n - 1, &g->last_next) &&
             tt_read_int(d, "last_rebuilt", 0, 1, &g->last_rebuilt) &&
             tt_read_int(d, "last_went_out", 0, 1, &g->last_went_out) &&
             tt_read_int(d, "last_false_out", 0, 1, &g->last_false_out) &&
             tt_read_int(d, "last_laid", 0, 1, &g->last_laid) &&
             tt_read_int(d, "last_round_ended", 0, 1, &g->last_round_ended);
    if (!ok) return 0;
    g->nstock = stock_n;
    g->npile = pile_n;
    const char *why = tt_game_check(g);
    if (why != NULL) {
        PyErr_Format(PyExc_ValueError, "not a game state the engine can play on: %s", why);
        return 0;
    }
    return 1;
}

#endif /* TT_GAME_STATE_H */
