/* tt_env.game._ccore: the C game engine (game/core/game.h) as a Python extension module.

   One type, CoreGame(rules, seed, solver): a game under `rules` (the tuple that
   tt_env.game.core.rules_tuple builds from a tt_env.Rules), asking `solver` (an object with
   go_out, penalty, arrange and redeem methods: tt_env.game.core.SolverService) what the engine
   does not decide itself. Every argument is checked here, before the engine sees it. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "game/_service.h"

/* ------------------------------------------------------------------ CoreGame */

typedef struct {
    PyObject_HEAD
    tt_rules rules;
    tt_game game;
    tt_game ended; /* the game as the round that ended last left it */
    tt_layout layout;
    int has_layout;
    tt_redemption scratch;
    PyObject *solver;
    PyObject *kernels; /* keeps the Kernel objects the service reads alive */
    service_ctx ctx;
    tt_solver_service svc;
    int broken; /* a solver failure mid-move left the game undefined */
} CoreGameObject;

static void CoreGame_dealloc(CoreGameObject *self) {
    Py_XDECREF(self->solver);
    Py_XDECREF(self->kernels);
    for (int i = 0; i < 3; i++) Py_XDECREF(self->ctx.error[i]);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *CoreGame_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    static char *names[] = {"rules", "seed", "solver", "kernels", NULL};
    PyObject *spec, *seed_obj, *solver, *kernels = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!OO|O!:CoreGame", names, &PyTuple_Type, &spec,
                                     &seed_obj, &solver, &PyTuple_Type, &kernels))
        return NULL;
    unsigned long long seed = PyLong_AsUnsignedLongLong(seed_obj);
    if (seed == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_SetString(PyExc_ValueError, "seed must be an integer 0..2**64-1");
        return NULL;
    }
    CoreGameObject *self = (CoreGameObject *)type->tp_alloc(type, 0);
    if (self == NULL) return NULL;
    if (read_rules(spec, &self->rules) < 0) {
        Py_DECREF(self);
        return NULL;
    }
    if (kernels != NULL && read_kernels(kernels, &self->rules, &self->ctx) < 0) {
        Py_DECREF(self);
        return NULL;
    }
    if (kernels != NULL) {
        Py_INCREF(kernels);
        self->kernels = kernels;
    }
    Py_INCREF(solver);
    self->solver = solver;
    self->ctx.solver = solver;
    self->svc = (tt_solver_service){&self->ctx, svc_go_out, svc_penalty, svc_arrange, svc_redeem};
    tt_game_init(&self->game, &self->rules, seed, &self->ended);
    return (PyObject *)self;
}

static int check_usable(CoreGameObject *self) {
    if (self->broken) {
        PyErr_SetString(PyExc_RuntimeError, "this game was left undefined by a solver failure");
        return -1;
    }
    return 0;
}

static PyObject *CoreGame_legal_mask(CoreGameObject *self, PyObject *Py_UNUSED(ignored)) {
    if (check_usable(self) < 0) return NULL;
    int8_t mask[TT_ACTIONS];
    if (tt_legal_mask(&self->game, &self->svc, mask) < 0) {
        tt_service_raise(&self->ctx);
        return NULL;
    }
    return PyBytes_FromStringAndSize((const char *)mask, TT_ACTIONS);
}

static PyObject *CoreGame_apply(CoreGameObject *self, PyObject *arg) {
    if (check_usable(self) < 0) return NULL;
    long action = PyLong_AsLong(arg);
    if (action == -1 && PyErr_Occurred()) return NULL;
    int status = tt_apply(&self->game, &self->svc, (int)action, &self->scratch);
    if (status == TT_ILLEGAL) {
        PyErr_Format(PyExc_ValueError, "action %ld is not legal for seat %d now", action,
                     self->game.current);
        return NULL;
    }
    if (status < 0) {
        self->broken = 1;
        if (!tt_service_raise(&self->ctx))
            PyErr_SetString(PyExc_RuntimeError, "the table has no room for another meld");
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *bytes_list(const uint8_t (*rows)[TT_KINDS], int n) {
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

static PyObject *int_list(const int64_t *values, int n) {
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

static PyObject *table_list(const tt_table *t) {
    PyObject *list = PyList_New(t->count);
    if (list == NULL) return NULL;
    for (int m = 0; m < t->count; m++) {
        uint8_t cards[TT_DECK_MAX];
        int n = 0;
        for (int i = 0; i < t->ncards; i++)
            if (t->meld_of[i] == m) cards[n++] = t->card[i];
        PyObject *item = Py_BuildValue("(iy#N)", t->seat[m], (const char *)cards, (Py_ssize_t)n,
                                       shape_tuple(&t->shape[m]));
        if (item == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, m, item);
    }
    return list;
}

/* The whole state as a dict (tests compare it with the Python engine's). */
static PyObject *CoreGame_state(CoreGameObject *self, PyObject *Py_UNUSED(ignored)) {
    const tt_game *g = &self->game;
    const int n = self->rules.num_players;
    return Py_BuildValue(
        "{s:i,s:i,s:i,s:i,s:i,s:N,s:N,s:N,s:y#,s:y#,s:N,s:i,s:i,s:N,s:i,s:i,s:i,s:N,s:N,s:i,"
        "s:i,s:i,s:i,s:i,s:i}",
        "first_dealer", g->first_dealer, "round_index", g->round_index, "phase", g->phase,
        "current", g->current, "dealer", tt_dealer(g), "scores", int_list(g->scores, n), "hands",
        bytes_list((const uint8_t(*)[TT_KINDS])g->hands, n), "taken",
        bytes_list((const uint8_t(*)[TT_KINDS])g->taken, n), "stock", (const char *)g->stock,
        (Py_ssize_t)g->nstock, "discard_pile", (const char *)g->pile, (Py_ssize_t)g->npile, "table",
        table_list(&g->table), "drawn_upcard", g->drawn_upcard, "went_out", g->went_out,
        "false_outs", int_list(g->false_outs, n), "turns", g->turns, "rounds_played",
        g->rounds_played, "ended_by", g->ended_by, "last_penalties", int_list(g->last_penalties, n),
        "last_deadwood", int_list(g->last_deadwood, n), "last_card", g->last_card, "last_rebuilt",
        g->last_rebuilt, "last_went_out", g->last_went_out, "last_false_out", g->last_false_out,
        "last_laid", g->last_laid, "last_round_ended", g->last_round_ended);
}

/* set_layout(starts, size): where each observation piece starts (in the order of PIECES),
   and the vector's size. */
static PyObject *CoreGame_set_layout(CoreGameObject *self, PyObject *args) {
    PyObject *starts;
    int size;
    if (!PyArg_ParseTuple(args, "Oi:set_layout", &starts, &size)) return NULL;
    if (read_layout(starts, size, self->rules.num_players, &self->layout) < 0) return NULL;
    self->has_layout = 1;
    Py_RETURN_NONE;
}

/* observation(seat, ended=False): the seat's observation as float32 bytes; of the game as the
   round that ended last left it, with `ended`. */
static PyObject *CoreGame_observation(CoreGameObject *self, PyObject *args) {
    int seat, ended = 0;
    if (!PyArg_ParseTuple(args, "i|p:observation", &seat, &ended)) return NULL;
    if (!self->has_layout) {
        PyErr_SetString(PyExc_RuntimeError, "call set_layout() first");
        return NULL;
    }
    if (seat < 0 || seat >= self->rules.num_players) {
        PyErr_Format(PyExc_ValueError, "seat must be 0..%d, got %d", self->rules.num_players - 1,
                     seat);
        return NULL;
    }
    if (ended && self->game.rounds_played == 0) {
        PyErr_SetString(PyExc_ValueError, "no round has ended yet");
        return NULL;
    }
    PyObject *out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)self->layout.size * 4);
    if (out == NULL) return NULL;
    tt_observe(ended ? &self->ended : &self->game, seat, &self->layout,
               (float *)PyBytes_AS_STRING(out));
    return out;
}

static PyMethodDef CoreGame_methods[] = {
    {"set_layout", (PyCFunction)CoreGame_set_layout, METH_VARARGS,
     "Where each observation piece starts, and the vector's size."},
    {"observation", (PyCFunction)CoreGame_observation, METH_VARARGS,
     "A seat's observation (float32 bytes); of the last ended round with ended=True."},
    {"legal_mask", (PyCFunction)CoreGame_legal_mask, METH_NOARGS,
     "The legal actions now, as 108 bytes of 0/1."},
    {"apply", (PyCFunction)CoreGame_apply, METH_O,
     "Play an action (0..107) for the seat to move; ValueError if it is not legal."},
    {"state", (PyCFunction)CoreGame_state, METH_NOARGS, "The whole state, as a dict."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject CoreGameType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tt_env.game._ccore.CoreGame",
    .tp_basicsize = sizeof(CoreGameObject),
    .tp_dealloc = (destructor)CoreGame_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "One game on the C engine: CoreGame(rules, seed, solver).",
    .tp_methods = CoreGame_methods,
    .tp_new = CoreGame_new,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    "tt_env.game._ccore",
    "The C game engine.",
    -1,
    NULL,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC PyInit__ccore(void) { return tt_engine_module(&module, &CoreGameType, "CoreGame"); }
