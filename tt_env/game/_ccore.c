/* tt_env.game._ccore: the C game engine (game/core/game.h) as a Python extension module.

   One type, CoreGame(rules, seed, solver, kernels=None): a game under `rules` (the tuple that
   tt_env.game.native.rules_tuple builds from a tt_env.Rules), asking `solver` (an object with
   go_out, penalty, arrange and redeem methods: tt_env.game.native.SolverService) what the
   engine does not decide itself, the compiled `kernels` first where they serve. tt_env's Game
   wraps it. Every argument is checked here, and every state set from Python by check.h, before
   the engine sees it. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "game/_service.h"
#include "game/_state.h"

/* ------------------------------------------------------------------ CoreGame */

typedef struct {
    PyObject_HEAD
    tt_rules rules;
    tt_game game;
    tt_game ended; /* the game as the round that ended last left it */
    tt_layout layout;
    int has_layout;
    int8_t mask[TT_ACTIONS]; /* the legal actions of the state, when mask_ok */
    int mask_ok;
    tt_redemption scratch;
    PyObject *solver;
    PyObject *kernels; /* keeps the Kernel objects the service reads alive */
    service_ctx ctx;
    tt_solver_service svc;
    int broken; /* a solver failure mid-move left the game undefined */
} CoreGameObject;

static PyTypeObject CoreGameType;

static void CoreGame_dealloc(CoreGameObject *self) {
    Py_XDECREF(self->solver);
    Py_XDECREF(self->kernels);
    for (int i = 0; i < 3; i++) Py_XDECREF(self->ctx.error[i]);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Point the games and the service at this object's own rules, snapshot and context. */
static void CoreGame_wire(CoreGameObject *self) {
    self->game.rules = self->ended.rules = &self->rules;
    self->game.ended = &self->ended;
    self->ended.ended = NULL;
    self->ctx.solver = self->solver;
    self->svc = (tt_solver_service){&self->ctx, svc_go_out, svc_penalty, svc_arrange, svc_redeem};
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
    Py_XINCREF(kernels);
    self->kernels = kernels;
    Py_INCREF(solver);
    self->solver = solver;
    tt_game_init(&self->game, &self->rules, seed, &self->ended);
    CoreGame_wire(self);
    return (PyObject *)self;
}

static int check_usable(CoreGameObject *self) {
    if (self->broken) {
        PyErr_SetString(PyExc_RuntimeError, "this game was left undefined by a solver failure");
        return -1;
    }
    return 0;
}

/* The legal actions of the state (computed once per state). */
static const int8_t *current_mask(CoreGameObject *self) {
    if (!self->mask_ok) {
        if (tt_legal_mask(&self->game, &self->svc, self->mask) < 0) {
            tt_service_raise(&self->ctx);
            return NULL;
        }
        self->mask_ok = 1;
    }
    return self->mask;
}

static PyObject *CoreGame_legal_mask(CoreGameObject *self, PyObject *Py_UNUSED(ignored)) {
    if (check_usable(self) < 0) return NULL;
    const int8_t *mask = current_mask(self);
    if (mask == NULL) return NULL;
    return PyBytes_FromStringAndSize((const char *)mask, TT_ACTIONS);
}

/* legal_actions(): the legal actions now, ascending, as a list of ints. */
static PyObject *CoreGame_legal_actions(CoreGameObject *self, PyObject *Py_UNUSED(ignored)) {
    if (check_usable(self) < 0) return NULL;
    const int8_t *mask = current_mask(self);
    if (mask == NULL) return NULL;
    int64_t actions[TT_ACTIONS];
    int count = 0;
    for (int a = 0; a < TT_ACTIONS; a++)
        if (mask[a]) actions[count++] = a;
    return tt_int_list(actions, count);
}

/* The last move as the fields of tt_env.game.moves.Outcome after its move: (seat, card,
   known, stock_size, rebuilt, went_out, false_out, laid, next_seat, turns, round_ended,
   game_over). */
static PyObject *last_move(const tt_game *g) {
    return Py_BuildValue("(iiiiNNNNiiNN)", g->last_seat, g->last_card, g->last_known, g->last_stock,
                         PyBool_FromLong(g->last_rebuilt), PyBool_FromLong(g->last_went_out),
                         PyBool_FromLong(g->last_false_out), PyBool_FromLong(g->last_laid),
                         g->last_next, g->last_turns, PyBool_FromLong(g->last_round_ended),
                         PyBool_FromLong(g->phase == TT_GAME_OVER));
}

/* apply(action): play it for the seat to move; the move's outcome (last_move). */
static PyObject *CoreGame_apply(CoreGameObject *self, PyObject *arg) {
    if (check_usable(self) < 0) return NULL;
    int64_t action;
    if (!tt_get_int(arg, INT64_MIN, INT64_MAX, &action, "action")) return NULL;
    const int8_t *mask = current_mask(self);
    if (mask == NULL) return NULL;
    if (action < 0 || action >= TT_ACTIONS || !mask[action]) {
        PyErr_Format(PyExc_ValueError, "action %lld is not legal for seat %d now",
                     (long long)action, self->game.current);
        return NULL;
    }
    self->mask_ok = 0;
    int status = tt_apply_masked(&self->game, &self->svc, (int)action, mask, &self->scratch);
    if (status < 0) {
        self->broken = 1;
        if (!tt_service_raise(&self->ctx))
            PyErr_SetString(PyExc_RuntimeError, "the table has no room for another meld");
        return NULL;
    }
    return last_move(&self->game);
}

static PyObject *CoreGame_last_move(CoreGameObject *self, PyObject *Py_UNUSED(ignored)) {
    return last_move(&self->game);
}

/* ------------------------------------------------------------------ copies and states */

static CoreGameObject *CoreGame_clone(CoreGameObject *self) {
    CoreGameObject *copy = (CoreGameObject *)CoreGameType.tp_alloc(&CoreGameType, 0);
    if (copy == NULL) return NULL;
    copy->rules = self->rules;
    copy->game = self->game;
    copy->ended = self->ended;
    copy->layout = self->layout;
    copy->has_layout = self->has_layout;
    memcpy(copy->mask, self->mask, TT_ACTIONS);
    copy->mask_ok = self->mask_ok;
    copy->broken = self->broken;
    memcpy(copy->ctx.kernel, self->ctx.kernel, sizeof self->ctx.kernel);
    Py_INCREF(self->solver);
    copy->solver = self->solver;
    Py_XINCREF(self->kernels);
    copy->kernels = self->kernels;
    CoreGame_wire(copy);
    return copy;
}

/* copy(): an independent copy (the same rules, solver and layout). */
static PyObject *CoreGame_copy(CoreGameObject *self, PyObject *Py_UNUSED(ignored)) {
    return (PyObject *)CoreGame_clone(self);
}

/* ended_copy(): a copy of the game as the round that ended last left it (nobody to move). */
static PyObject *CoreGame_ended_copy(CoreGameObject *self, PyObject *Py_UNUSED(ignored)) {
    if (self->game.rounds_played == 0) {
        PyErr_SetString(PyExc_ValueError, "no round has ended yet");
        return NULL;
    }
    CoreGameObject *copy = CoreGame_clone(self);
    if (copy == NULL) return NULL;
    copy->game = self->ended;
    copy->mask_ok = 0;
    CoreGame_wire(copy);
    return (PyObject *)copy;
}

/* state(ended=False): every field of the game (of the ended round's snapshot) as a dict. */
static PyObject *CoreGame_state(CoreGameObject *self, PyObject *args) {
    int ended = 0;
    if (!PyArg_ParseTuple(args, "|p:state", &ended)) return NULL;
    if (ended && self->game.rounds_played == 0) Py_RETURN_NONE;
    return state_dict(ended ? &self->ended : &self->game);
}

/* set_state(state, ended=False): replace the game (the ended round's snapshot) by a state of
   state()'s form; checked whole before anything changes. */
static PyObject *CoreGame_set_state(CoreGameObject *self, PyObject *args) {
    PyObject *d;
    int ended = 0;
    if (!PyArg_ParseTuple(args, "O|p:set_state", &d, &ended)) return NULL;
    tt_game *candidate = PyMem_Malloc(sizeof(tt_game));
    if (candidate == NULL) return PyErr_NoMemory();
    memset(candidate, 0, sizeof *candidate);
    candidate->rules = &self->rules;
    int ok = state_read(d, candidate);
    if (ok) {
        if (ended) {
            self->ended = *candidate;
        } else {
            self->game = *candidate;
            self->mask_ok = 0;
            self->broken = 0;
        }
        CoreGame_wire(self);
    }
    PyMem_Free(candidate);
    if (!ok) return NULL;
    Py_RETURN_NONE;
}

/* settle(): at the start of a turn of a set-up position, end the round if nothing can be drawn
   (RULES.md); True if it ended. */
static PyObject *CoreGame_settle(CoreGameObject *self, PyObject *Py_UNUSED(ignored)) {
    if (check_usable(self) < 0) return NULL;
    self->mask_ok = 0;
    int status = tt_settle(&self->game, &self->svc);
    if (status < 0) {
        self->broken = 1;
        if (!tt_service_raise(&self->ctx))
            PyErr_SetString(PyExc_RuntimeError, "the engine failed to end the round");
        return NULL;
    }
    return PyBool_FromLong(status);
}

/* ------------------------------------------------------------------ what a game shows */

static int seat_arg(CoreGameObject *self, PyObject *arg, int *seat) {
    int64_t s;
    if (!tt_get_int(arg, 0, self->rules.num_players - 1, &s, "seat")) return 0;
    *seat = (int)s;
    return 1;
}

static PyObject *CoreGame_hand(CoreGameObject *self, PyObject *arg) {
    int seat;
    if (!seat_arg(self, arg, &seat)) return NULL;
    return PyBytes_FromStringAndSize((const char *)self->game.hands[seat], TT_KINDS);
}

static PyObject *CoreGame_known(CoreGameObject *self, PyObject *arg) {
    int seat;
    if (!seat_arg(self, arg, &seat)) return NULL;
    return PyBytes_FromStringAndSize((const char *)self->game.taken[seat], TT_KINDS);
}

static PyObject *CoreGame_hands(CoreGameObject *self, PyObject *Py_UNUSED(ignored)) {
    return tt_rows_list((const uint8_t(*)[TT_KINDS])self->game.hands, self->rules.num_players);
}

static PyObject *CoreGame_knowns(CoreGameObject *self, PyObject *Py_UNUSED(ignored)) {
    return tt_rows_list((const uint8_t(*)[TT_KINDS])self->game.taken, self->rules.num_players);
}

static PyObject *CoreGame_hand_sizes(CoreGameObject *self, PyObject *Py_UNUSED(ignored)) {
    int64_t sizes[TT_MAX_SEATS];
    for (int s = 0; s < self->rules.num_players; s++) {
        sizes[s] = 0;
        for (int k = 0; k < TT_KINDS; k++) sizes[s] += self->game.hands[s][k];
    }
    return tt_int_list(sizes, self->rules.num_players);
}

static PyObject *CoreGame_stock(CoreGameObject *self, PyObject *Py_UNUSED(ignored)) {
    return PyBytes_FromStringAndSize((const char *)self->game.stock, self->game.nstock);
}

static PyObject *CoreGame_discard_pile(CoreGameObject *self, PyObject *Py_UNUSED(ignored)) {
    return PyBytes_FromStringAndSize((const char *)self->game.pile, self->game.npile);
}

static PyObject *CoreGame_table(CoreGameObject *self, PyObject *Py_UNUSED(ignored)) {
    return tt_melds_list(&self->game.table, 0, self->game.table.count);
}

static PyObject *CoreGame_scores(CoreGameObject *self, PyObject *Py_UNUSED(ignored)) {
    return tt_int_list(self->game.scores, self->rules.num_players);
}

static PyObject *CoreGame_false_outs(CoreGameObject *self, PyObject *Py_UNUSED(ignored)) {
    return tt_int_list(self->game.false_outs, self->rules.num_players);
}

/* round_result(): the round that ended last, as (round_index, went_out, penalties, deadwood
   points, false outs, ended_by, per seat None or the melds it laid down when it was scored,
   per seat its hand at the end, per seat whether a leftover joker was free). */
static PyObject *CoreGame_round_result(CoreGameObject *self, PyObject *Py_UNUSED(ignored)) {
    const tt_game *g = &self->ended;
    const int n = self->rules.num_players;
    if (self->game.rounds_played == 0) {
        PyErr_SetString(PyExc_ValueError, "no round has ended yet");
        return NULL;
    }
    PyObject *laid = PyList_New(n);
    if (laid == NULL) return NULL;
    for (int s = 0; s < n; s++) {
        PyObject *item = Py_None;
        Py_INCREF(item);
        if (g->scored[s]) {
            Py_DECREF(item);
            item = tt_melds_list(&g->table, g->scored_first[s], g->scored_count[s]);
            if (item == NULL) {
                Py_DECREF(laid);
                return NULL;
            }
        }
        PyList_SET_ITEM(laid, s, item);
    }
    int64_t joker_free[TT_MAX_SEATS] = {0};
    for (int s = 0; s < n; s++) joker_free[s] = tt_joker_free(g, s);
    return Py_BuildValue(
        "(iiNNNiNNN)", g->round_index, g->went_out, tt_int_list(g->last_penalties, n),
        tt_int_list(g->last_deadwood, n), tt_int_list(g->false_outs, n), g->ended_by, laid,
        tt_rows_list((const uint8_t(*)[TT_KINDS])g->hands, n), tt_int_list(joker_free, n));
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

/* observation(seat, ended=False): the seat's observation as float32 in a new bytearray; of the
   game as the round that ended last left it, with `ended`. */
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
    PyObject *out = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)self->layout.size * 4);
    if (out == NULL) return NULL;
    tt_observe(ended ? &self->ended : &self->game, seat, &self->layout,
               (float *)PyByteArray_AS_STRING(out));
    return out;
}

/* ------------------------------------------------------------------ numbers */

#define GETTER(name, expr)                                                                 \
    static PyObject *CoreGame_get_##name(CoreGameObject *self, void *Py_UNUSED(closure)) { \
        return PyLong_FromLongLong((long long)(expr));                                     \
    }
GETTER(phase, self->game.phase)
GETTER(current, self->game.current)
GETTER(round_index, self->game.round_index)
GETTER(turns, self->game.turns)
GETTER(went_out, self->game.went_out)
GETTER(stock_size, self->game.nstock)
GETTER(pile_size, self->game.npile)
GETTER(drawn_upcard, self->game.drawn_upcard)
GETTER(rounds_played, self->game.rounds_played)
GETTER(first_dealer, self->game.first_dealer)
GETTER(dealer, tt_dealer(&self->game))
GETTER(top_discard, self->game.npile ? self->game.pile[self->game.npile - 1] : -1)

#define GET(name, doc) \
    { #name, (getter)CoreGame_get_##name, NULL, doc, NULL }
static PyGetSetDef CoreGame_getset[] = {
    GET(phase, "The phase (tt_env.game.moves.Phase)."),
    GET(current, "The seat to move."),
    GET(round_index, "The round in play, from 0."),
    GET(turns, "Turns played this round."),
    GET(went_out, "The seat that went out this round, or -1."),
    GET(stock_size, "Cards in the stock."),
    GET(pile_size, "Cards in the discard pile."),
    GET(drawn_upcard, "The card taken from the discard pile this turn, or -1."),
    GET(rounds_played, "Rounds ended so far."),
    GET(first_dealer, "The dealer of the first round."),
    GET(dealer, "The dealer of the round."),
    GET(top_discard, "The top discard, or -1."),
    {NULL, NULL, NULL, NULL, NULL},
};

#define METHOD(name, flags, doc) \
    { #name, (PyCFunction)CoreGame_##name, flags, doc }
static PyMethodDef CoreGame_methods[] = {
    METHOD(set_layout, METH_VARARGS, "Where each observation piece starts, and the size."),
    METHOD(observation, METH_VARARGS, "A seat's observation (float32 in a bytearray)."),
    METHOD(legal_mask, METH_NOARGS, "The legal actions now, as 108 bytes of 0/1."),
    METHOD(legal_actions, METH_NOARGS, "The legal actions now, ascending."),
    METHOD(apply, METH_O, "Play an action (0..107) for the seat to move; its outcome."),
    METHOD(last_move, METH_NOARGS, "The last move's outcome, as apply() gave it."),
    METHOD(copy, METH_NOARGS, "An independent copy."),
    METHOD(ended_copy, METH_NOARGS, "A copy of the game as the last ended round left it."),
    METHOD(state, METH_VARARGS, "The whole state as a dict (of the ended round with True)."),
    METHOD(set_state, METH_VARARGS, "Replace the state by a checked dict of state()'s form."),
    METHOD(settle, METH_NOARGS, "End the round of a set-up position with nothing to draw."),
    METHOD(hand, METH_O, "A seat's hand as 53 counts (bytes)."),
    METHOD(known, METH_O, "What a seat is known to hold, as 53 counts (bytes)."),
    METHOD(hands, METH_NOARGS, "Every hand as 53 counts (bytes)."),
    METHOD(knowns, METH_NOARGS, "Per seat, what it is known to hold (bytes)."),
    METHOD(hand_sizes, METH_NOARGS, "Per seat, the cards held."),
    METHOD(stock, METH_NOARGS, "The stock, bottom first (bytes of card kinds)."),
    METHOD(discard_pile, METH_NOARGS, "The discard pile, bottom first (bytes)."),
    METHOD(table, METH_NOARGS, "The melds: (seat, cards, shape, shape as laid down)."),
    METHOD(scores, METH_NOARGS, "The game's totals."),
    METHOD(false_outs, METH_NOARGS, "Per seat, the false go-out penalties of the round."),
    METHOD(round_result, METH_NOARGS, "The round that ended last."),
    {NULL, NULL, 0, NULL},
};

static PyTypeObject CoreGameType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tt_env.game._ccore.CoreGame",
    .tp_basicsize = sizeof(CoreGameObject),
    .tp_dealloc = (destructor)CoreGame_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "One game on the C engine: CoreGame(rules, seed, solver, kernels=None).",
    .tp_methods = CoreGame_methods,
    .tp_getset = CoreGame_getset,
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
