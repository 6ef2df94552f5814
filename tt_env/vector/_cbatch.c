/* tt_env.vector._cbatch: every table of a batch stepped in one call (vector/table.h).

   Batch(rules, solver, kernels, layout, observations, masks, rewards, terminations, seats,
   round_episodes, relative, *, seat_agents=None, rule=None): N tables under `rules`
   (tt_env.game.native.rules_tuple), each writing into row i of the five arrays Python
   allocated once (float32 (N, size), int8 (N, 108), float64 (N, players), bool (N,), int64
   (N,)). `kernels` holds one set of compiled solver kernels per thread
   (tt_env.game.native.kernels): the tables are split among that many threads, which step
   without the GIL and take it only where the Python solver answers.

   `seat_agents`, int8 (N, players), says who decides for each seat of each table
   (vector/seats.h): 0 the caller, 1 random, 2 greedy, 3 counting (with `rule`, the
   expected-penalty rule's (lookahead, feed_cost, wild_feed_cost, candidates, margin)). The
   built-in agents move inside the call, until every table is at a seat of the caller's or its
   episode has ended; Python may change the array between calls (a value outside 0..3 is the
   caller's). Every argument is checked here, and every action before any table moves. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "game/_service.h"
#include "util/pyargs.h"
#include "util/threads.h"
#include "valuation/_crule.h"
#include "vector/seats.h"
#include "vector/table.h"

#define TT_MAX_THREADS TT_THREADS_MAX

typedef struct {
    PyObject_HEAD
    tt_rules rules;
    tt_layout layout;
    tt_episodes episodes;
    Py_ssize_t n;
    int threads;
    tt_table_env *tables;
    service_ctx *ctx;           /* per thread */
    tt_solver_service *svc;     /* per thread */
    tt_redemption *scratch;     /* per thread */
    PyObject *solver, *kernels; /* kept alive: the services read them */
    tt_threads *pool;           /* the threads that step the tables besides the caller's */
    Py_buffer obs, masks, rewards, terminations, seats;
    int have_buffers;
    int broken; /* an engine failure left a table undefined */
    /* the seats' agents */
    Py_buffer seat_agents; /* int8 (N, players), or none given: */
    int8_t *callers;       /* ... every seat the caller's */
    tt_agents agents;
    tt_rng *rngs; /* (N, players): each seat's generator (random) */
    float *views; /* per thread: room for an observation (counting) */
} BatchObject;

static void Batch_dealloc(BatchObject *self) {
    if (self->pool != NULL) {
        Py_BEGIN_ALLOW_THREADS tt_threads_free(self->pool);
        Py_END_ALLOW_THREADS
    }
    if (self->have_buffers) {
        PyBuffer_Release(&self->obs);
        PyBuffer_Release(&self->masks);
        PyBuffer_Release(&self->rewards);
        PyBuffer_Release(&self->terminations);
        PyBuffer_Release(&self->seats);
    }
    if (self->seat_agents.obj != NULL) PyBuffer_Release(&self->seat_agents);
    PyMem_Free(self->callers);
    PyMem_Free(self->rngs);
    PyMem_Free(self->views);
    if (self->ctx != NULL)
        for (int t = 0; t < self->threads; t++)
            for (int i = 0; i < 3; i++) Py_XDECREF(self->ctx[t].error[i]);
    PyMem_Free(self->tables);
    PyMem_Free(self->ctx);
    PyMem_Free(self->svc);
    PyMem_Free(self->scratch);
    Py_XDECREF(self->solver);
    Py_XDECREF(self->kernels);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* seat_agents (int8 (N, players), or None: every seat the caller's) and rule (counting's
   parameters, or None), with each seat's generator. 0, or -1 with an exception. */
static int read_agents(BatchObject *self, PyObject *seat_agents, PyObject *rule) {
    const Py_ssize_t n = self->n, p = self->rules.num_players;
    self->rngs = PyMem_Calloc((size_t)(n * p), sizeof(tt_rng));
    if (self->rngs == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n * p; i++) {
        uint64_t seed = (uint64_t)i;
        tt_rng_seed(&self->rngs[i], &seed, 1);
    }
    if (seat_agents == Py_None) {
        self->callers = PyMem_Calloc((size_t)(n * p), 1);
        if (self->callers == NULL) {
            PyErr_NoMemory();
            return -1;
        }
    } else {
        Py_ssize_t shape[2] = {n, p};
        if (!tt_get_array(seat_agents, &self->seat_agents, "seat_agents", "iu", 1, 2, shape, 0))
            return -1;
    }
    tt_agents_observer(&self->layout, &self->rules, &self->agents.observer);
    if (rule != Py_None) {
        if (!PyTuple_Check(rule) || PyTuple_GET_SIZE(rule) != 5) {
            PyErr_SetString(PyExc_TypeError,
                            "rule must be None or a tuple (lookahead, feed_cost, wild_feed_cost, "
                            "candidates, margin)");
            return -1;
        }
        PyObject *params[5];
        for (int i = 0; i < 5; i++) params[i] = PyTuple_GET_ITEM(rule, i);
        if (!tt_get_rule(params, self->rules.discard_drawn_upcard, &self->agents.rule)) return -1;
        self->agents.have_rule = 1;
    }
    return 0;
}

static PyObject *Batch_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    static char *names[] = {"rules",    "solver",      "kernels",      "layout", "observations",
                            "masks",    "rewards",     "terminations", "seats",  "round_episodes",
                            "relative", "seat_agents", "rule",         NULL};
    PyObject *spec, *solver, *kernels, *layout, *obs, *masks, *rewards, *terms, *seats;
    PyObject *seat_agents = Py_None, *rule = Py_None;
    int round_episodes, relative;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!OO!O!OOOOOpp|$OO:Batch", names, &PyTuple_Type,
                                     &spec, &solver, &PyTuple_Type, &kernels, &PyTuple_Type,
                                     &layout, &obs, &masks, &rewards, &terms, &seats,
                                     &round_episodes, &relative, &seat_agents, &rule))
        return NULL;
    BatchObject *self = (BatchObject *)type->tp_alloc(type, 0);
    if (self == NULL) return NULL;
    if (read_rules(spec, &self->rules) < 0) goto fail;
    PyObject *starts;
    int size;
    if (!PyArg_ParseTuple(layout, "Oi:layout", &starts, &size)) goto fail;
    if (read_layout(starts, size, self->rules.num_players, &self->layout) < 0) goto fail;
    self->episodes = (tt_episodes){round_episodes, relative};
    /* the arrays: C-contiguous, writable, of the right types and shapes */
    Py_ssize_t any2[2] = {-1, size};
    if (!tt_get_array(obs, &self->obs, "observations", "f", 4, 2, any2, 1)) goto fail;
    Py_ssize_t n = self->obs.shape[0];
    if (n < 1) {
        PyBuffer_Release(&self->obs);
        PyErr_SetString(PyExc_ValueError, "a batch has at least one table");
        goto fail;
    }
    Py_ssize_t mshape[2] = {n, TT_ACTIONS}, rshape[2] = {n, self->rules.num_players}, one[1] = {n};
    int got = 1;
    if (!tt_get_array(masks, &self->masks, "masks", "iu", 1, 2, mshape, 1)) {
        got = 0;
    } else if (!tt_get_array(rewards, &self->rewards, "rewards", "f", 8, 2, rshape, 1)) {
        PyBuffer_Release(&self->masks);
        got = 0;
    } else if (!tt_get_array(terms, &self->terminations, "terminations", "?", 1, 1, one, 1)) {
        PyBuffer_Release(&self->masks);
        PyBuffer_Release(&self->rewards);
        got = 0;
    } else if (!tt_get_array(seats, &self->seats, "seats", "i", 8, 1, one, 1)) {
        PyBuffer_Release(&self->masks);
        PyBuffer_Release(&self->rewards);
        PyBuffer_Release(&self->terminations);
        got = 0;
    }
    if (!got) {
        PyBuffer_Release(&self->obs);
        goto fail;
    }
    self->have_buffers = 1;
    self->n = n;
    if (read_agents(self, seat_agents, rule) < 0) goto fail;
    /* one set of kernels per thread */
    Py_ssize_t threads = PyTuple_GET_SIZE(kernels);
    if (threads < 1 || threads > TT_MAX_THREADS) {
        PyErr_Format(PyExc_ValueError, "kernels: one set per thread, 1..%d", TT_MAX_THREADS);
        goto fail;
    }
#ifdef _WIN32
    if (threads > 1) {
        PyErr_SetString(PyExc_ValueError, "this build steps a batch on one thread");
        goto fail;
    }
#endif
    self->threads = (int)threads;
    self->tables = PyMem_Calloc((size_t)n, sizeof(tt_table_env));
    self->ctx = PyMem_Calloc((size_t)threads, sizeof(service_ctx));
    self->svc = PyMem_Calloc((size_t)threads, sizeof(tt_solver_service));
    self->scratch = PyMem_Calloc((size_t)threads, sizeof(tt_redemption));
    self->views = PyMem_Calloc((size_t)threads * (size_t)size, sizeof(float));
    if (!self->tables || !self->ctx || !self->svc || !self->scratch || !self->views) {
        PyErr_NoMemory();
        goto fail;
    }
    for (int t = 0; t < self->threads; t++) {
        PyObject *set = PyTuple_GET_ITEM(kernels, t);
        if (!PyTuple_Check(set) || read_kernels(set, &self->rules, &self->ctx[t]) < 0) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "kernels: tuples per thread");
            goto fail;
        }
        self->ctx[t].solver = solver;
        self->svc[t] = (tt_solver_service){&self->ctx[t], svc_go_out, svc_penalty, svc_arrange,
                                           svc_redeem};
    }
    Py_INCREF(solver);
    self->solver = solver;
    Py_INCREF(kernels);
    self->kernels = kernels;
#ifndef _WIN32
    if (self->threads > 1 && (self->pool = tt_threads_new(self->threads)) == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
#endif
    return (PyObject *)self;
fail:
    Py_DECREF(self);
    return NULL;
}

/* ------------------------------------------------------------------ stepping on threads */

/* What a call does at each table (advance's `modes`). */
enum { MODE_SKIP = 0, MODE_ACT = 1, MODE_NEXT = 2, MODE_SEED = 3, MODES };

typedef struct {
    BatchObject *batch;
    int thread;
    Py_ssize_t begin, end;
    const uint8_t *modes;   /* per table; NULL: every table MODE_ACT (actions) or MODE_SEED */
    const int64_t *actions; /* NULL: reset with seeds */
    const uint64_t *seeds;
    int zero;          /* the rewards start from 0 (else they add to what the rows hold) */
    Py_ssize_t failed; /* the first table that failed, or -1 */
    int status;
} work;

static const int8_t *seat_agents_of(const BatchObject *b, Py_ssize_t i) {
    const int8_t *all = b->callers != NULL ? b->callers : (const int8_t *)b->seat_agents.buf;
    return all + i * b->rules.num_players;
}

/* The built-in agents' moves at table i until a seat of the caller's is to move (or a built-in
   agent leaves its decision to Python) or the episode ends. */
static int play_agents(BatchObject *b, int thread, Py_ssize_t i, double *reward) {
    tt_table_env *t = &b->tables[i];
    const tt_solver_service *svc = &b->svc[thread];
    const int8_t *agents = seat_agents_of(b, i);
    float *view = b->views + (size_t)thread * (size_t)b->layout.size;
    while (!t->over) {
        const int seat = t->game.current;
        const int kind = agents[seat];
        if (kind <= TT_SEAT_CALLER || kind > TT_SEAT_COUNTING) return TT_OK;
        int legal = tt_legal_mask(&t->game, svc, t->legal);
        if (legal < 0) return legal;
        const tt_solver *S = b->ctx[thread].kernel[t->game.round_index][0];
        tt_rng *rng = &b->rngs[i * b->rules.num_players + seat];
        int action = tt_builtin_action(kind, &b->agents, S, rng, t, view);
        if (action == TT_UNDECIDED) return TT_OK;
        int status = tt_table_step(t, svc, &b->episodes, action, reward, &b->scratch[thread]);
        if (status < 0) return status;
    }
    return TT_OK;
}

static void run(void *job) {
    work *w = job;
    BatchObject *b = w->batch;
    const tt_solver_service *svc = &b->svc[w->thread];
    tt_redemption *scratch = &b->scratch[w->thread];
    const int p = b->rules.num_players;
    const int size = b->layout.size;
    float *obs = b->obs.buf;
    int8_t *masks = b->masks.buf;
    double *rewards = b->rewards.buf;
    uint8_t *terms = b->terminations.buf;
    int64_t *seats = b->seats.buf;
    for (Py_ssize_t i = w->begin; i < w->end; i++) {
        const int mode = w->modes != NULL ? w->modes[i]
                                          : (w->actions != NULL ? MODE_ACT : MODE_SEED);
        if (mode == MODE_SKIP) continue;
        tt_table_env *t = &b->tables[i];
        double *reward = rewards + i * p;
        if (w->zero)
            for (int s = 0; s < p; s++) reward[s] = 0.0;
        int status = TT_OK;
        if (mode == MODE_SEED) {
            tt_table_reset(t, &b->rules, w->seeds[i]);
        } else if (mode == MODE_NEXT || t->over) {
            tt_table_next_episode(t); /* the action given for an ended table is ignored */
        } else {
            status = tt_table_step(t, svc, &b->episodes, (int)w->actions[i], reward, scratch);
        }
        if (status == TT_OK) status = play_agents(b, w->thread, i, reward);
        if (status == TT_OK)
            status = tt_table_write(t, svc, &b->layout, obs + i * size, masks + i * TT_ACTIONS,
                                    &seats[i]);
        terms[i] = (uint8_t)t->over;
        if (status != TT_OK) {
            w->failed = i;
            w->status = status;
            return;
        }
    }
}

/* Run over every table on the batch's threads, without the GIL. 0, or -1 with an exception. */
static int run_all(BatchObject *self, const uint8_t *modes, const int64_t *actions,
                   const uint64_t *seeds, int zero) {
    work jobs[TT_MAX_THREADS];
    void *each[TT_MAX_THREADS];
    const int T = (int)(self->threads < self->n ? self->threads : self->n);
    for (int t = 0; t < T; t++) {
        jobs[t] = (work){
            self, t, self->n * t / T, self->n * (t + 1) / T, modes, actions, seeds, zero, -1, 0};
        each[t] = &jobs[t];
    }
    Py_BEGIN_ALLOW_THREADS tt_threads_run(self->pool, run, each, T);
    Py_END_ALLOW_THREADS for (int t = 0; t < T; t++) {
        if (jobs[t].failed < 0) continue;
        self->broken = 1;
        if (!tt_service_raise(&self->ctx[t]))
            PyErr_Format(PyExc_RuntimeError, "table %zd: the engine failed (%d)", jobs[t].failed,
                         jobs[t].status);
        return -1;
    }
    return 0;
}

static int check_usable(BatchObject *self) {
    if (self->broken) {
        PyErr_SetString(PyExc_RuntimeError, "this batch was left undefined by an engine failure");
        return -1;
    }
    return 0;
}

/* Every action of a table that plays one (modes[i] == 1, or every table without modes) is
   legal there, and every mode known: 0, or -1 with a ValueError naming the first that is not. */
static int check_actions(BatchObject *self, const uint8_t *modes, const int64_t *a) {
    for (Py_ssize_t i = 0; i < self->n; i++) {
        if (modes != NULL && modes[i] >= MODES) {
            PyErr_Format(PyExc_ValueError, "table %zd: mode %d is not one of 0..%d", i, modes[i],
                         MODES - 1);
            return -1;
        }
        if (modes != NULL && modes[i] != MODE_ACT) continue;
        const tt_table_env *t = &self->tables[i];
        if (t->over) continue;
        if (a[i] < 0 || a[i] >= TT_ACTIONS || !t->legal[a[i]]) {
            PyErr_Format(PyExc_ValueError, "table %zd: action %lld is not legal for seat %d now", i,
                         (long long)a[i], t->game.current);
            return -1;
        }
    }
    return 0;
}

/* reset(seeds): table i starts the game of reset(seed=seeds[i]) (uint64 (N,)). */
static PyObject *Batch_reset(BatchObject *self, PyObject *arg) {
    if (check_usable(self) < 0) return NULL;
    Py_buffer seeds;
    if (!tt_get_vector(arg, &seeds, "seeds", "u", 8, self->n, 0)) return NULL;
    int status = run_all(self, NULL, NULL, seeds.buf, 1);
    PyBuffer_Release(&seeds);
    if (status < 0) return NULL;
    Py_RETURN_NONE;
}

/* step(actions): every table plays its action (int64 (N,)); an ended table starts its next
   episode instead. Every action is checked first: one that is not legal raises ValueError
   naming the table, the seat and the action, and no table moves. */
static PyObject *Batch_step(BatchObject *self, PyObject *arg) {
    if (check_usable(self) < 0) return NULL;
    Py_buffer actions;
    if (!tt_get_vector(arg, &actions, "actions", "i", 8, self->n, 0)) return NULL;
    const int64_t *a = actions.buf;
    if (check_actions(self, NULL, a) < 0) {
        PyBuffer_Release(&actions);
        return NULL;
    }
    int status = run_all(self, NULL, a, NULL, 1);
    PyBuffer_Release(&actions);
    if (status < 0) return NULL;
    Py_RETURN_NONE;
}

/* advance(modes, actions, seeds): at each table i by modes[i] (uint8 (N,)): 0 nothing (its
   rows stay as they are), 1 play actions[i] (int64 (N,); an ended table starts its next
   episode instead), 2 start the next episode (reset() without a seed), 3 start the game of
   seeds[i] (uint64 (N,)); then the built-in agents move. The rewards earned are added to what
   the rows of `rewards` hold (the caller zeroes them). Every action and mode is checked first:
   a bad one raises ValueError naming the table, and no table moves. */
static PyObject *Batch_advance(BatchObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError,
                     "advance() takes 3 arguments (modes, actions, seeds), %zd given", nargs);
        return NULL;
    }
    if (check_usable(self) < 0) return NULL;
    Py_buffer modes, actions, seeds;
    if (!tt_get_vector(args[0], &modes, "modes", "u", 1, self->n, 0)) return NULL;
    if (!tt_get_vector(args[1], &actions, "actions", "i", 8, self->n, 0)) {
        PyBuffer_Release(&modes);
        return NULL;
    }
    if (!tt_get_vector(args[2], &seeds, "seeds", "u", 8, self->n, 0)) {
        PyBuffer_Release(&modes);
        PyBuffer_Release(&actions);
        return NULL;
    }
    int status = check_actions(self, modes.buf, actions.buf);
    if (status == 0) status = run_all(self, modes.buf, actions.buf, seeds.buf, 0);
    PyBuffer_Release(&modes);
    PyBuffer_Release(&actions);
    PyBuffer_Release(&seeds);
    if (status < 0) return NULL;
    Py_RETURN_NONE;
}

/* A table's index into *i, or -1 with a TypeError or ValueError naming the table (an integer
   of no table: IndexError). */
static int check_table(BatchObject *self, PyObject *arg, Py_ssize_t *i) {
    int64_t index;
    if (!tt_get_int(arg, INT64_MIN, INT64_MAX, &index, "table")) return -1;
    if (index < 0 || index >= self->n) {
        PyErr_Format(PyExc_IndexError, "table %lld: the batch has tables 0..%zd", (long long)index,
                     self->n - 1);
        return -1;
    }
    *i = (Py_ssize_t)index;
    return 0;
}

/* A seat into *seat, or -1 with a TypeError or ValueError naming the seat. */
static int check_seat(BatchObject *self, PyObject *arg, int *seat) {
    int64_t value;
    if (!tt_get_int(arg, 0, self->rules.num_players - 1, &value, "seat")) return -1;
    *seat = (int)value;
    return 0;
}

/* end(i): table i's episode ends where it stands (an illegal action under
   illegal_action="terminate"): its rows say so, and its next episode is a new game. */
static PyObject *Batch_end(BatchObject *self, PyObject *arg) {
    Py_ssize_t i;
    if (check_usable(self) < 0 || check_table(self, arg, &i) < 0) return NULL;
    tt_table_env *t = &self->tables[i];
    tt_table_end(t);
    int64_t *seats = self->seats.buf;
    tt_table_write(t, &self->svc[0], &self->layout, (float *)self->obs.buf + i * self->layout.size,
                   (int8_t *)self->masks.buf + i * TT_ACTIONS, &seats[i]);
    ((uint8_t *)self->terminations.buf)[i] = 1;
    Py_RETURN_NONE;
}

/* view(i, seat): observations row i becomes what `seat` sees at table i (of the position the
   episode ended in, at an ended table). */
static PyObject *Batch_view(BatchObject *self, PyObject *const *args, Py_ssize_t nargs) {
    Py_ssize_t i;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "view() takes 2 arguments (table, seat)");
        return NULL;
    }
    int seat;
    if (check_table(self, args[0], &i) < 0 || check_seat(self, args[1], &seat) < 0) return NULL;
    const tt_table_env *t = &self->tables[i];
    tt_observe(t->over ? &t->ended : &t->game, seat, &self->layout,
               (float *)self->obs.buf + i * self->layout.size);
    Py_RETURN_NONE;
}

/* move_agents(i, order): the generator of table i's seat s becomes the one of seat order[s]
   (an agent that moves to another seat keeps its own); `order` names each seat once. */
static PyObject *Batch_move_agents(BatchObject *self, PyObject *const *args, Py_ssize_t nargs) {
    Py_ssize_t i;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "move_agents() takes 2 arguments (table, order)");
        return NULL;
    }
    if (check_table(self, args[0], &i) < 0) return NULL;
    const int p = self->rules.num_players;
    int64_t order[TT_MAX_SEATS];
    if (!tt_get_ints(args[1], p, 0, p - 1, order, "order")) return NULL;
    int taken[TT_MAX_SEATS] = {0}; /* each generator goes to one seat: no two draw alike */
    for (int s = 0; s < p; s++) {
        if (taken[order[s]]++) {
            PyErr_Format(PyExc_ValueError,
                         "order must name each seat 0..%d once, got seat %lld twice", p - 1,
                         (long long)order[s]);
            return NULL;
        }
    }
    tt_rng moved[TT_MAX_SEATS];
    tt_rng *rngs = &self->rngs[i * p];
    for (int s = 0; s < p; s++) moved[s] = rngs[order[s]];
    memcpy(rngs, moved, sizeof(tt_rng) * (size_t)p);
    Py_RETURN_NONE;
}

/* seed_agent(i, seat, seed): the generator of table i's seat is np.random.default_rng(seed). */
static PyObject *Batch_seed_agent(BatchObject *self, PyObject *const *args, Py_ssize_t nargs) {
    Py_ssize_t i;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "seed_agent() takes 3 arguments (table, seat, seed)");
        return NULL;
    }
    int seat;
    if (check_table(self, args[0], &i) < 0 || check_seat(self, args[1], &seat) < 0) return NULL;
    uint64_t entropy;
    Py_ssize_t count;
    if (!PyIndex_Check(args[2])) {
        PyErr_Format(PyExc_TypeError, "seed must be an integer 0..2**64-1, not %.100s",
                     Py_TYPE(args[2])->tp_name);
        return NULL;
    }
    if (!tt_get_entropy(args[2], &entropy, 1, &count, "seed")) return NULL;
    tt_rng_seed(&self->rngs[i * self->rules.num_players + seat], &entropy, 1);
    Py_RETURN_NONE;
}

static PyObject *int64_tuple(const int64_t *values, int n) {
    PyObject *out = PyTuple_New(n);
    for (int s = 0; out != NULL && s < n; s++) {
        PyObject *v = PyLong_FromLongLong(values[s]);
        if (v == NULL) {
            Py_CLEAR(out);
            break;
        }
        PyTuple_SET_ITEM(out, s, v);
    }
    return out;
}

/* table(i): what the episode's infos need of table i, as a dict. */
static PyObject *Batch_table(BatchObject *self, PyObject *arg) {
    Py_ssize_t i;
    if (check_table(self, arg, &i) < 0) return NULL;
    const tt_table_env *t = &self->tables[i];
    const tt_game *g = &t->game;
    const int n = self->rules.num_players;
    PyObject *scores = int64_tuple(g->scores, n);
    PyObject *penalties = int64_tuple(g->last_penalties, n);
    PyObject *out = NULL;
    if (scores != NULL && penalties != NULL)
        out = Py_BuildValue("{s:i,s:i,s:i,s:i,s:i,s:i,s:O,s:O}", "round_index", g->round_index,
                            "ended_round_index", t->ended.round_index, "rounds_played",
                            g->rounds_played, "over", t->over, "round_played", t->round_played,
                            "game_over", g->phase == TT_GAME_OVER, "scores", scores, "penalties",
                            penalties);
    Py_XDECREF(scores);
    Py_XDECREF(penalties);
    return out;
}

static PyObject *Batch_get_threads(BatchObject *self, void *closure) {
    (void)closure;
    return PyLong_FromLong(self->threads);
}

static PyMethodDef Batch_methods[] = {
    {"reset", (PyCFunction)Batch_reset, METH_O, "Start table i's game of seed seeds[i]."},
    {"step", (PyCFunction)Batch_step, METH_O, "Play one action at every table."},
    {"advance", (PyCFunction)(void (*)(void))Batch_advance, METH_FASTCALL,
     "advance(modes, actions, seeds): act, start the next episode or reset, table by table."},
    {"end", (PyCFunction)Batch_end, METH_O, "end(i): table i's episode ends where it stands."},
    {"seed_agent", (PyCFunction)(void (*)(void))Batch_seed_agent, METH_FASTCALL,
     "seed_agent(i, seat, seed): seed the generator of table i's seat."},
    {"table", (PyCFunction)Batch_table, METH_O, "table(i): the state of table i's game."},
    {"view", (PyCFunction)(void (*)(void))Batch_view, METH_FASTCALL,
     "view(i, seat): observations row i as seat sees table i."},
    {"move_agents", (PyCFunction)(void (*)(void))Batch_move_agents, METH_FASTCALL,
     "move_agents(i, order): seat s of table i takes the generator of seat order[s]."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Batch_getset[] = {
    {"threads", (getter)Batch_get_threads, NULL, "The threads that step the tables.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject BatchType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tt_env.vector._cbatch.Batch",
    .tp_basicsize = sizeof(BatchObject),
    .tp_dealloc = (destructor)Batch_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Every table of a batch stepped in one call.",
    .tp_methods = Batch_methods,
    .tp_getset = Batch_getset,
    .tp_new = Batch_new,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    "tt_env.vector._cbatch",
    "Every table stepped in one call.",
    -1,
    NULL,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC PyInit__cbatch(void) { return tt_engine_module(&module, &BatchType, "Batch"); }
