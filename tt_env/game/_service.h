/* The Python side of the C engine's bindings (tt_env.game._ccore, tt_env.vector._cbatch).

   The solver service that the engine asks (game/core/game.h, tt_solver_service): the compiled
   solver (game/core/kernels.h; the redemption's lay-offs too) where it serves the
   configuration and certifies the hand, the Python solver (a tt_env.game.native.SolverService,
   exact for every input) for the rest, so that every answer is the one tt_env.game.melds
   gives. The Python calls take the GIL themselves (a batch steps its tables on threads without
   it) and keep the first error they meet in the service's context, for the caller to raise
   once it holds the GIL again. And the readers of what Python passes: the rules
   (tt_env.game.native.rules_tuple), the kernels (the observation layout's: game/_layout.h). */

#ifndef TT_GAME_SERVICE_H
#define TT_GAME_SERVICE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "game/_layout.h"
#include "game/core/game.h"
#include "game/core/kernels.h"
#include "game/core/observe.h"
#include "game/melds/_csolver.h"

/* ------------------------------------------------------------------ the solver service */

/* The compiled solver answers where it serves the configuration and certifies the hand; the
   Python solver (`solver`, exact for every input) answers the rest, so every answer is the one
   tt_env.game.melds gives. */
typedef struct {
    PyObject *solver;                          /* borrowed from the owner */
    PyObject *error[3];                        /* the first failure: type, value, traceback */
    const tt_solver *kernel[TT_MAX_ROUNDS][2]; /* [round][joker_free]; NULL: Python */
    int64_t scratch[TT_KINDS];
    int64_t keys[TT_ARRANGE_KEYS];
    uint8_t cards[TT_ARRANGE_CARDS];
} service_ctx;

/* An int result of a solver method, or -1 with the exception set. */
/* Keep the error just raised (with the GIL held) in the service's context, if it is the
   first. */
static void keep_error(service_ctx *ctx) {
    if (ctx->error[0] == NULL)
        PyErr_Fetch(&ctx->error[0], &ctx->error[1], &ctx->error[2]);
    else
        PyErr_Clear();
}

static int64_t int_of(PyObject *result, int64_t low, int64_t high, const char *what) {
    if (result == NULL) return -1;
    long long value = PyLong_AsLongLong(result);
    Py_DECREF(result);
    if (value == -1 && PyErr_Occurred()) return -1;
    if (value < low || value > high) {
        PyErr_Format(PyExc_ValueError, "solver %s returned %lld, outside %lld..%lld", what, value,
                     (long long)low, (long long)high);
        return -1;
    }
    return value;
}

static int64_t svc_go_out(void *ctx, int round, const uint8_t *counts) {
    service_ctx *c = ctx;
    const tt_solver *S = c->kernel[round][0];
    if (S != NULL) {
        int64_t bits = tt_kernel_go_out(S, counts, c->scratch);
        if (bits >= 0) return bits;
    }
    PyGILState_STATE gil = PyGILState_Ensure();
    PyObject *result = PyObject_CallMethod(c->solver, "go_out", "iy#", round, (const char *)counts,
                                           (Py_ssize_t)TT_KINDS);
    int64_t bits = int_of(result, 0, (((int64_t)1) << TT_KINDS) - 1, "go_out");
    if (bits < 0) keep_error(c);
    PyGILState_Release(gil);
    return bits;
}

static int64_t svc_penalty(void *ctx, int round, const uint8_t *counts, int joker_free) {
    service_ctx *c = ctx;
    const tt_solver *S = c->kernel[round][joker_free ? 1 : 0];
    if (S != NULL) {
        int64_t points = tt_evaluate(S, counts, TT_POINTS);
        if (points >= 0) return points;
    }
    PyGILState_STATE gil = PyGILState_Ensure();
    PyObject *result = PyObject_CallMethod(c->solver, "penalty", "iy#i", round,
                                           (const char *)counts, (Py_ssize_t)TT_KINDS, joker_free);
    int64_t points = int_of(result, 0, ((int64_t)1) << 40, "penalty");
    if (points < 0) keep_error(c);
    PyGILState_Release(gil);
    return points;
}

/* A shape from a 7-tuple (kind, rank, suit, low, high, wilds, size). */
static int shape_of(PyObject *obj, tt_shape *shape) {
    long v[7];
    if (!PyTuple_Check(obj) || PyTuple_GET_SIZE(obj) != 7) {
        PyErr_SetString(PyExc_ValueError, "a meld shape is a tuple of 7 ints");
        return -1;
    }
    static const long low[7] = {0, 0, -1, 0, 0, 0, 1}, high[7] = {2, 13, 3, 14, 14, 10000, 10000};
    for (int i = 0; i < 7; i++) {
        v[i] = PyLong_AsLong(PyTuple_GET_ITEM(obj, i));
        if (v[i] == -1 && PyErr_Occurred()) return -1;
        if (v[i] < low[i] || v[i] > high[i]) {
            PyErr_Format(PyExc_ValueError, "meld shape field %d is %ld, outside %ld..%ld", i, v[i],
                         low[i], high[i]);
            return -1;
        }
    }
    *shape = (tt_shape){(int8_t)v[0], (int8_t)v[1],  (int8_t)v[2], (int8_t)v[3],
                        (int8_t)v[4], (int16_t)v[5], (int16_t)v[6]};
    return 0;
}

/* Card kinds from a bytes object, appended to out (room checked). */
static int cards_of(PyObject *obj, uint8_t *out, int *n, int room) {
    if (!PyBytes_Check(obj)) {
        PyErr_SetString(PyExc_TypeError, "meld cards must be bytes of card kinds");
        return -1;
    }
    Py_ssize_t size = PyBytes_GET_SIZE(obj);
    const uint8_t *data = (const uint8_t *)PyBytes_AS_STRING(obj);
    if (*n + size > room) {
        PyErr_SetString(PyExc_ValueError, "too many meld cards");
        return -1;
    }
    for (Py_ssize_t i = 0; i < size; i++) {
        if (data[i] >= TT_KINDS) {
            PyErr_Format(PyExc_ValueError, "no such card kind: %d", data[i]);
            return -1;
        }
        out[(*n)++] = data[i];
    }
    return 0;
}

/* A list of (cards, shape) into melds; every card must be in counts. */
static int melds_of(PyObject *list, tt_melds *out, const uint8_t *counts) {
    if (!PyList_Check(list) || PyList_GET_SIZE(list) > TT_MAX_TABLE) {
        PyErr_SetString(PyExc_ValueError, "melds must be a list of (cards, shape)");
        return -1;
    }
    uint8_t left[TT_KINDS];
    memcpy(left, counts, TT_KINDS);
    out->count = 0;
    out->ncards = 0;
    for (Py_ssize_t m = 0; m < PyList_GET_SIZE(list); m++) {
        PyObject *item = PyList_GET_ITEM(list, m);
        if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 2) {
            PyErr_SetString(PyExc_ValueError, "a meld is a (cards, shape) tuple");
            return -1;
        }
        int start = out->ncards;
        if (cards_of(PyTuple_GET_ITEM(item, 0), out->card, &out->ncards, TT_DECK_MAX) < 0)
            return -1;
        if (shape_of(PyTuple_GET_ITEM(item, 1), &out->shape[out->count]) < 0) return -1;
        if (out->shape[out->count].size != out->ncards - start) {
            PyErr_SetString(PyExc_ValueError, "a meld's size is not its number of cards");
            return -1;
        }
        for (int i = start; i < out->ncards; i++) {
            if (!left[out->card[i]]) {
                PyErr_SetString(PyExc_ValueError, "a meld holds a card the hand does not");
                return -1;
            }
            left[out->card[i]]--;
        }
        out->count++;
    }
    return 0;
}

static int svc_arrange(void *ctx, int round, const uint8_t *counts, tt_melds *out) {
    service_ctx *c = ctx;
    const tt_solver *S = c->kernel[round][0];
    if (S != NULL && tt_kernel_arrange(S, counts, c->cards, c->keys, out)) return 0;
    PyGILState_STATE gil = PyGILState_Ensure();
    PyObject *result = PyObject_CallMethod(c->solver, "arrange", "iy#", round, (const char *)counts,
                                           (Py_ssize_t)TT_KINDS);
    int status = -1;
    if (result != NULL) {
        status = melds_of(result, out, counts);
        Py_DECREF(result);
    }
    if (status < 0) keep_error(c);
    PyGILState_Release(gil);
    return status;
}

static PyObject *shape_tuple(const tt_shape *s) {
    return Py_BuildValue("(iiiiiii)", s->kind, s->rank, s->suit, s->low, s->high, s->wilds,
                         s->size);
}

static int py_redeem(PyObject *solver, int round, const uint8_t *counts, const tt_table *table,
                     int joker_free, tt_redemption *out) {
    PyObject *shapes = PyList_New(table->count);
    if (shapes == NULL) return -1;
    for (int m = 0; m < table->count; m++) {
        PyObject *s = shape_tuple(&table->shape[m]);
        if (s == NULL) {
            Py_DECREF(shapes);
            return -1;
        }
        PyList_SET_ITEM(shapes, m, s);
    }
    PyObject *result = PyObject_CallMethod(solver, "redeem", "iy#Oi", round, (const char *)counts,
                                           (Py_ssize_t)TT_KINDS, shapes, joker_free);
    Py_DECREF(shapes);
    if (result == NULL) return -1;
    int status = -1;
    PyObject *laid, *new_shapes, *own;
    long long points;
    if (!PyArg_ParseTuple(result, "OOOL", &laid, &new_shapes, &own, &points)) goto done;
    if (!PyList_Check(laid) || !PyList_Check(new_shapes) ||
        PyList_GET_SIZE(new_shapes) != table->count || points < 0) {
        PyErr_SetString(PyExc_ValueError, "solver redeem returned a malformed result");
        goto done;
    }
    uint8_t left[TT_KINDS];
    memcpy(left, counts, TT_KINDS);
    out->nlaid_off = 0;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(laid); i++) {
        int card, onto;
        if (!PyArg_ParseTuple(PyList_GET_ITEM(laid, i), "ii", &card, &onto)) goto done;
        if (card < 0 || card >= TT_KINDS || !left[card] || onto < 0 || onto >= table->count ||
            out->nlaid_off >= TT_DECK_MAX) {
            PyErr_SetString(PyExc_ValueError, "solver redeem laid off a card it cannot");
            goto done;
        }
        left[card]--;
        out->laid_off_card[out->nlaid_off] = (uint8_t)card;
        out->laid_off_onto[out->nlaid_off++] = (uint8_t)onto;
    }
    for (int m = 0; m < table->count; m++)
        if (shape_of(PyList_GET_ITEM(new_shapes, m), &out->table_shape[m]) < 0) goto done;
    if (melds_of(own, &out->own, left) < 0) goto done;
    out->points = points;
    status = 0;
done:
    Py_DECREF(result);
    return status;
}

static int svc_redeem(void *ctx, int round, const uint8_t *counts, const tt_table *table,
                      int joker_free, tt_redemption *out) {
    service_ctx *c = ctx;
    const tt_solver *S = c->kernel[round][joker_free ? 1 : 0];
    if (S != NULL && tt_kernel_redeem(S, counts, table, out)) return 0;
    PyGILState_STATE gil = PyGILState_Ensure();
    int status = py_redeem(c->solver, round, counts, table, joker_free, out);
    if (status < 0) keep_error(c);
    PyGILState_Release(gil);
    return status;
}

/* rules: (num_players, decks, jokers_per_deck, cards_dealt tuple, wild_rank tuple, multiplier
   tuple, turn_cap, discard_drawn_upcard, redemption, joker_layoff, false_out_penalty or -1). */
static int read_rules(PyObject *spec, tt_rules *R) {
    PyObject *cards, *wild, *mult;
    if (!PyArg_ParseTuple(spec, "iiiOOOiiiii:rules", &R->num_players, &R->decks,
                          &R->jokers_per_deck, &cards, &wild, &mult, &R->turn_cap,
                          &R->discard_drawn_upcard, &R->redemption, &R->joker_layoff,
                          &R->false_out_penalty))
        return -1;
    if (R->num_players < 2 || R->num_players > TT_MAX_SEATS || R->decks < 1 || R->decks > 12 ||
        R->jokers_per_deck < 0 || R->jokers_per_deck > 4 || R->turn_cap < 1 ||
        R->turn_cap > 10000 || R->false_out_penalty < -1 || R->false_out_penalty > 1000) {
        PyErr_SetString(PyExc_ValueError, "rules out of range");
        return -1;
    }
    if (!PyTuple_Check(cards) || !PyTuple_Check(wild) || !PyTuple_Check(mult) ||
        PyTuple_GET_SIZE(cards) < 1 || PyTuple_GET_SIZE(cards) > TT_MAX_ROUNDS ||
        PyTuple_GET_SIZE(wild) != PyTuple_GET_SIZE(cards) ||
        PyTuple_GET_SIZE(mult) != PyTuple_GET_SIZE(cards)) {
        PyErr_SetString(PyExc_ValueError, "rules: rounds must be three tuples of one length");
        return -1;
    }
    R->num_rounds = (int)PyTuple_GET_SIZE(cards);
    const int deck = R->decks * (52 + R->jokers_per_deck);
    for (int i = 0; i < R->num_rounds; i++) {
        R->cards_dealt[i] = (int)PyLong_AsLong(PyTuple_GET_ITEM(cards, i));
        R->wild_rank[i] = (int)PyLong_AsLong(PyTuple_GET_ITEM(wild, i));
        R->multiplier[i] = (int)PyLong_AsLong(PyTuple_GET_ITEM(mult, i));
        if (PyErr_Occurred()) return -1;
        if (R->cards_dealt[i] < 3 || R->cards_dealt[i] > 15 ||
            R->num_players * R->cards_dealt[i] + 1 > deck || R->wild_rank[i] < 1 ||
            R->wild_rank[i] > 13 || R->multiplier[i] < 1 || R->multiplier[i] > 2) {
            PyErr_SetString(PyExc_ValueError, "rules: a round out of range");
            return -1;
        }
    }
    return 0;
}

/* kernels: per round, a pair (Kernel or None, Kernel or None): the compiled solver of the
   round's configuration, and of the same with a leftover joker free (joker_layoff). */
static int read_kernels(PyObject *kernels, const tt_rules *R, service_ctx *ctx) {
    if (PyTuple_GET_SIZE(kernels) != R->num_rounds) {
        PyErr_Format(PyExc_ValueError, "kernels: one pair per round (%d), got %zd", R->num_rounds,
                     PyTuple_GET_SIZE(kernels));
        return -1;
    }
    for (int r = 0; r < R->num_rounds; r++) {
        PyObject *pair = PyTuple_GET_ITEM(kernels, r);
        if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
            PyErr_SetString(PyExc_ValueError, "kernels: each round's is a pair");
            return -1;
        }
        for (int j = 0; j < 2; j++) {
            PyObject *k = PyTuple_GET_ITEM(pair, j);
            ctx->kernel[r][j] = NULL;
            if (k == Py_None) continue;
            tt_KernelObject *kernel = tt_kernel_of(k, "every kernel");
            if (kernel == NULL) return -1;
            if (kernel->s.w != R->wild_rank[r] - 1) {
                PyErr_Format(PyExc_ValueError,
                             "kernels: round %d's kernel is for another wild rank", r);
                return -1;
            }
            ctx->kernel[r][j] = &kernel->s;
        }
    }
    return 0;
}

/* The error a service met (on any thread), raised now: 1 if there was one. Needs the GIL. */
static int tt_service_raise(service_ctx *ctx) {
    if (ctx->error[0] == NULL) return 0;
    PyErr_Restore(ctx->error[0], ctx->error[1], ctx->error[2]);
    ctx->error[0] = ctx->error[1] = ctx->error[2] = NULL;
    return 1;
}

/* A module of the engine's bindings: `def` created, `type` added under `name`, and PIECES;
   NULL with an exception. */
static inline PyObject *tt_engine_module(struct PyModuleDef *def, PyTypeObject *type,
                                         const char *name) {
    if (PyType_Ready(type) < 0) return NULL;
    PyObject *m = PyModule_Create(def);
    if (m == NULL) return NULL;
    PyObject *pieces = tt_piece_names();
    if (pieces == NULL || PyModule_AddObject(m, "PIECES", pieces) < 0) {
        Py_XDECREF(pieces);
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(type);
    if (PyModule_AddObject(m, name, (PyObject *)type) < 0) {
        Py_DECREF(type);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}

#endif /* TT_GAME_SERVICE_H */
