/* tt_env.learned._cfeatures: the learned agents' card features, compiled (card_features.h).

   Features(kernels, starts, observation_size, *, seats, deck, rank, same, near1, near2,
   max_cards, discard_drawn_upcard, lookahead, candidates, margin) holds the fixed parameters of
   one CardFeatures (tt_env/learned/features.py builds it; starts and observation_size are the
   layout, tt_env.encoding.observation.piece_starts(seats, PIECES)) and the solver Kernels of
   wild ranks 1..13 (tt_env.game.melds._csolver), whose configurations the transform runs;
   Features.fill(observation, out) writes the features of one observation and says whether it
   could (False: the numpy definition answers); Features.fill_many(observations, out, served)
   does the same for every row of a batch in one call, on threads without the GIL, each with
   solver kernels of its own (Features.use_threads(kernel_sets); the threads are util/threads.h's).
   PIECES names the observation's pieces in the order of the layout's starts; CARD_FEATURES,
   GLOBAL_FEATURES and SEAT_FEATURES name the values in the order this module writes them; the
   Python side checks them against tt_env/learned/_layout.py, so that a module built from older
   sources is not used.

   Nothing reaches the C code unchecked: the arrays through the buffer protocol (element type,
   shape, C order; no numpy at build time), the tables' card kinds, the seat count, every piece
   of the layout inside the observation (valuation/_knowledge.h); the observation's values
   themselves are the kernel's to judge (valuation/knowledge.h, tt_see()). A bad argument
   raises TypeError or ValueError naming it. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "game/_layout.h"
#include "game/melds/_csolver.h"
#include "learned/card_features.h"
#include "util/pyargs.h"
#include "util/threads.h"
#include "valuation/_knowledge.h"

/* ------------------------------------------------------------------ the Features type */

typedef struct {
    PyObject_HEAD
    tt_cf_params p;
    PyObject *kernels; /* the tuple of Kernels that p.solver points into (kept alive) */
    Py_ssize_t observation_size;
    Py_ssize_t size; /* the length of the feature vector */
    int ready;       /* __init__ succeeded: p is complete */
    /* fill_many()'s threads (use_threads()) */
    int threads;              /* the kernel sets held: one a thread (0: none given) */
    tt_cf_params *own;        /* [threads]: p with each thread's own kernels */
    PyObject *thread_kernels; /* the tuple of those sets (kept alive) */
    tt_threads *pool;         /* threads 1..threads-1 */
    int busy;                 /* a fill_many() runs without the GIL on the threads' kernels */
} FeaturesObject;

/* Copy a neighbour table ((53, width) int64, every entry a card kind or TT_CF_NONE). */
static int read_neighbours(PyObject *obj, const char *what, tt_cf_neighbours *table) {
    Py_buffer view;
    const Py_ssize_t shape[2] = {TT_CF_KINDS, -1}; /* a row per card kind, any width */
    if (!tt_get_array(obj, &view, what, "i", 8, 2, shape, 0)) return 0;
    Py_ssize_t width = view.shape[1];
    int ok = width >= 1 && width <= TT_CF_MAX_NEIGHBOURS;
    if (!ok) {
        PyErr_Format(PyExc_ValueError, "%s must have 1..%d columns, not %zd", what,
                     TT_CF_MAX_NEIGHBOURS, width);
    } else {
        const int64_t *kinds = view.buf;
        table->width = width;
        for (Py_ssize_t k = 0; k < TT_CF_KINDS && ok; k++) {
            for (Py_ssize_t j = 0; j < TT_CF_MAX_NEIGHBOURS; j++) {
                int64_t q = j < width ? kinds[k * width + j] : TT_CF_NONE;
                if (q < 0 || q > TT_CF_NONE) {
                    PyErr_Format(PyExc_ValueError,
                                 "%s[%zd, %zd] is %lld: not a card kind (0..52) nor %d (none)",
                                 what, k, j, (long long)q, TT_CF_NONE);
                    ok = 0;
                    break;
                }
                table->kind[k][j] = (uint8_t)q;
            }
        }
    }
    PyBuffer_Release(&view);
    return ok;
}

static int read_rank(PyObject *obj, double *rank) {
    Py_buffer view;
    if (!tt_get_vector(obj, &view, "rank", "f", 8, TT_CF_KINDS, 0)) return 0;
    memcpy(rank, view.buf, TT_CF_KINDS * sizeof(double));
    PyBuffer_Release(&view);
    return 1;
}

/* The solver Kernels of wild ranks 1..13, in order, as a new tuple (which keeps them alive),
   their configurations into `solver`; NULL with an exception naming `what` when they are not. */
static PyObject *read_kernel_set(PyObject *kernels, const char *what, const tt_solver **solver) {
    PyObject *set = PySequence_Check(kernels) ? PySequence_Tuple(kernels) : NULL;
    if (set == NULL) {
        PyErr_Format(PyExc_TypeError, "%s must be a sequence of 13 solver Kernels", what);
        return NULL;
    }
    if (PyTuple_GET_SIZE(set) != TT_CF_RANKS) {
        PyErr_Format(PyExc_ValueError, "%s must hold %d solver Kernels (wild ranks 1..13), not %zd",
                     what, TT_CF_RANKS, PyTuple_GET_SIZE(set));
        Py_DECREF(set);
        return NULL;
    }
    for (int i = 0; i < TT_CF_RANKS; i++) {
        char item[64];
        snprintf(item, sizeof item, "%s[%d]", what, i);
        tt_KernelObject *kernel = tt_kernel_of(PyTuple_GET_ITEM(set, i), item);
        if (kernel == NULL) {
            Py_DECREF(set);
            return NULL;
        }
        if (kernel->s.w != i) {
            PyErr_Format(PyExc_ValueError, "%s is the kernel of wild rank %lld, not %d", item,
                         (long long)kernel->s.w + 1, i + 1);
            Py_DECREF(set);
            return NULL;
        }
        solver[i] = &kernel->s;
    }
    return set;
}

/* Let go of fill_many()'s threads and their kernels (none may be at work). The GIL stays held
   throughout, so that no other Python thread sees them half gone: the pool's threads never
   take it, and they are idle. */
static void drop_threads(FeaturesObject *self) {
    tt_threads_free(self->pool);
    self->pool = NULL;
    PyMem_Free(self->own);
    self->own = NULL;
    self->threads = 0;
    Py_CLEAR(self->thread_kernels);
}

static void Features_dealloc(FeaturesObject *self) {
    drop_threads(self);
    Py_XDECREF(self->kernels);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *busy_error(void) {
    PyErr_SetString(PyExc_RuntimeError,
                    "this Features is filling a batch on another thread: try again after it");
    return NULL;
}

static int Features_init(FeaturesObject *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"kernels",
                               "starts",
                               "observation_size",
                               "seats",
                               "deck",
                               "rank",
                               "same",
                               "near1",
                               "near2",
                               "max_cards",
                               "discard_drawn_upcard",
                               "lookahead",
                               "candidates",
                               "margin",
                               NULL};
    PyObject *kernels, *starts, *observation_size, *seats, *deck, *rank, *same, *near1, *near2;
    long long max_cards, candidates, margin;
    int ddu, lookahead;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOO$OOOOOOLppLL:Features", keywords, &kernels,
                                     &starts, &observation_size, &seats, &deck, &rank, &same,
                                     &near1, &near2, &max_cards, &ddu, &lookahead, &candidates,
                                     &margin))
        return -1;
    if (self->busy) {
        busy_error();
        return -1;
    }
    self->ready = 0;    /* until every argument is read (__init__ may be called again) */
    drop_threads(self); /* their parameters were copies of the old ones */
    Py_CLEAR(self->kernels);
    memset(&self->p, 0, sizeof self->p);
    if (max_cards < 1 || max_cards > TT_MAX_HAND) {
        PyErr_Format(PyExc_ValueError, "max_cards must be 1..%d, not %lld", TT_MAX_HAND, max_cards);
        return -1;
    }
    tt_cf_params *p = &self->p;
    p->max_cards = max_cards;
    p->discard_drawn_upcard = ddu;
    p->lookahead = lookahead;
    p->candidates = candidates;
    p->margin = margin;
    if (!tt_get_observer(starts, observation_size, seats, deck, &p->observer) ||
        !read_rank(rank, p->rank) || !read_neighbours(same, "same", &p->neighbours[0]) ||
        !read_neighbours(near1, "near1", &p->neighbours[1]) ||
        !read_neighbours(near2, "near2", &p->neighbours[2]) ||
        (self->kernels = read_kernel_set(kernels, "kernels", p->solver)) == NULL)
        return -1;
    self->observation_size = p->observer.layout.size;
    self->size = (Py_ssize_t)tt_cf_size(p->observer.num_players);
    self->ready = 1;
    return 0;
}

PyDoc_STRVAR(fill_doc,
             "fill(observation, out) -> bool\n\n"
             "Write the features of `observation` (float32, the layout's length) into `out`\n"
             "(float32, `size` values). False when the numpy definition must answer instead\n"
             "(the solver's kernel could not certify a value, a count is not a whole number\n"
             "of copies 0..255, or a hand to discard from is empty); `out` then holds\n"
             "nothing of use.");

static PyObject *Features_fill(FeaturesObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "fill() takes 2 arguments (observation, out), not %zd",
                     nargs);
        return NULL;
    }
    if (!self->ready) {
        PyErr_SetString(PyExc_ValueError, "Features was not initialised");
        return NULL;
    }
    Py_buffer obs, out;
    if (!tt_get_vector(args[0], &obs, "observation", "f", 4, self->observation_size, 0))
        return NULL;
    if (!tt_get_vector(args[1], &out, "out", "f", 4, self->size, 1)) {
        PyBuffer_Release(&obs);
        return NULL;
    }
    const char *o = obs.buf, *f = out.buf;
    if (o < f + out.len && f < o + obs.len) { /* out is zeroed before the observation is read */
        PyBuffer_Release(&obs);
        PyBuffer_Release(&out);
        PyErr_SetString(PyExc_ValueError, "out must not overlap the observation");
        return NULL;
    }
    int done = tt_card_features(&self->p, obs.buf, out.buf);
    PyBuffer_Release(&obs);
    PyBuffer_Release(&out);
    return PyBool_FromLong(done);
}

/* Whether two buffers share a byte. */
static int overlap(const Py_buffer *a, const Py_buffer *b) {
    const char *x = a->buf, *y = b->buf;
    return x < y + b->len && y < x + a->len;
}

PyDoc_STRVAR(use_threads_doc,
             "use_threads(kernel_sets) -> bool\n\n"
             "Give fill_many() its threads: one set a thread (1..64 sets), each the solver\n"
             "Kernels of wild ranks 1..13, with workspaces and suit tables of its own, shared\n"
             "with no other set and with none of the kernels `fill` uses (fill_many() solves\n"
             "on them without the GIL: tt_env.game.melds.private_kernels makes such sets).\n"
             "Replaces the sets given before; False, changing nothing, while a fill_many()\n"
             "runs on them (in another Python thread).");

static PyObject *Features_use_threads(FeaturesObject *self, PyObject *sets) {
    if (!self->ready) {
        PyErr_SetString(PyExc_ValueError, "Features was not initialised");
        return NULL;
    }
    if (self->busy) Py_RETURN_FALSE;
    PyObject *given = PySequence_Check(sets) ? PySequence_Tuple(sets) : NULL;
    if (given == NULL) {
        PyErr_SetString(PyExc_TypeError, "kernel_sets must be a sequence of kernel sets");
        return NULL;
    }
    const Py_ssize_t n = PyTuple_GET_SIZE(given);
    PyObject *held = NULL;
    tt_cf_params *own = NULL;
    if (n < 1 || n > TT_THREADS_MAX) {
        PyErr_Format(PyExc_ValueError, "kernel_sets must hold 1..%d sets, not %zd", TT_THREADS_MAX,
                     n);
        goto fail;
    }
    held = PyTuple_New(n);
    own = PyMem_Calloc((size_t)n, sizeof *own);
    if (held == NULL || own == NULL) {
        if (own == NULL) PyErr_NoMemory();
        goto fail;
    }
    for (Py_ssize_t t = 0; t < n; t++) {
        char what[48];
        snprintf(what, sizeof what, "kernel_sets[%zd]", t);
        own[t] = self->p;
        PyObject *set = read_kernel_set(PyTuple_GET_ITEM(given, t), what, own[t].solver);
        if (set == NULL) goto fail;
        PyTuple_SET_ITEM(held, t, set);
        /* solving writes the workspace and the memo of the suit tables: no other thread, and
           no call of fill() under the GIL, may reach either */
        for (int i = 0; i < TT_CF_RANKS; i++) {
            const tt_solver *S = own[t].solver[i];
            for (Py_ssize_t u = -1; u < t; u++) {
                const tt_solver *const *other = u < 0 ? self->p.solver : own[u].solver;
                for (int j = 0; j < TT_CF_RANKS; j++) {
                    if (S->ws == other[j]->ws || S->tab == other[j]->tab) {
                        PyErr_Format(PyExc_ValueError,
                                     "%s[%d] shares its workspace or suit tables with %s: "
                                     "each thread needs kernels of its own",
                                     what, i, u < 0 ? "the kernels of fill()" : "another set");
                        goto fail;
                    }
                }
            }
        }
    }
    tt_threads *pool = NULL;
    if (n > 1 && (pool = tt_threads_new((int)n)) == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    drop_threads(self);
    self->threads = (int)n;
    self->own = own;
    self->thread_kernels = held;
    self->pool = pool;
    Py_DECREF(given);
    Py_RETURN_TRUE;
fail:
    PyMem_Free(own);
    Py_XDECREF(held);
    Py_DECREF(given);
    return NULL;
}

/* One thread's share of fill_many(): rows taken one at a time from a counter all share, so
   that a thread slowed down by others on its core leaves more rows to the rest. */
typedef struct {
    const tt_cf_params *P;
    const float *obs;
    float *out;
    uint8_t *served;
    Py_ssize_t rows, obs_size, size;
    Py_ssize_t *next; /* the next row nobody took */
    Py_ssize_t left;  /* rows this thread left to the definition */
} fill_job;

static Py_ssize_t take_row(Py_ssize_t *next) {
#if defined(__GNUC__) || defined(__clang__)
    return __atomic_fetch_add(next, 1, __ATOMIC_RELAXED);
#else /* no pool without POSIX threads: the caller alone takes rows */
    return (*next)++;
#endif
}

static void fill_rows(void *arg) {
    fill_job *job = arg;
    for (Py_ssize_t i = take_row(job->next); i < job->rows; i = take_row(job->next)) {
        int done = tt_card_features(job->P, job->obs + i * job->obs_size, job->out + i * job->size);
        job->served[i] = (uint8_t)done;
        job->left += !done;
    }
}

PyDoc_STRVAR(fill_many_doc,
             "fill_many(observations, out, served, threads=None) -> int\n\n"
             "fill() for every row of `observations` (float32, (M, the layout's length)) into\n"
             "the same row of `out` (float32, (M, `size`)), in one call: on the threads of\n"
             "use_threads() without the GIL (at most `threads` of them; all by default). served\n"
             "(bool or uint8, (M,)) gets fill()'s answer of each row: False where the numpy\n"
             "definition must answer instead. Returns how many rows it left so. Without threads\n"
             "given, or while another call on this object runs, it answers on the calling\n"
             "thread with fill()'s kernels, the GIL held. The arrays must be C-contiguous, `out`\n"
             "and `served` writable, and no two of them may overlap.");

static PyObject *Features_fill_many(FeaturesObject *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"observations", "out", "served", "threads", NULL};
    PyObject *observations, *out_obj, *served_obj, *threads_obj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOO|O:fill_many", keywords, &observations,
                                     &out_obj, &served_obj, &threads_obj))
        return NULL;
    if (!self->ready) {
        PyErr_SetString(PyExc_ValueError, "Features was not initialised");
        return NULL;
    }
    long threads = self->threads;
    if (threads_obj != Py_None) {
        int whole = PyLong_Check(threads_obj) && !PyBool_Check(threads_obj);
        threads = whole ? PyLong_AsLong(threads_obj) : -1;
        if (threads < 1 || threads > TT_THREADS_MAX || PyErr_Occurred()) {
            PyErr_Clear();
            PyErr_Format(PyExc_ValueError, "threads must be an int 1..%d or None", TT_THREADS_MAX);
            return NULL;
        }
        if (threads > self->threads) threads = self->threads;
    }
    Py_buffer obs, out, served;
    const Py_ssize_t any[2] = {-1, self->observation_size};
    if (!tt_get_array(observations, &obs, "observations", "f", 4, 2, any, 0)) return NULL;
    const Py_ssize_t rows = obs.shape[0];
    const Py_ssize_t shape[2] = {rows, self->size};
    if (!tt_get_array(out_obj, &out, "out", "f", 4, 2, shape, 1)) {
        PyBuffer_Release(&obs);
        return NULL;
    }
    if (!tt_get_vector(served_obj, &served, "served", "?u", 1, rows, 1)) {
        PyBuffer_Release(&obs);
        PyBuffer_Release(&out);
        return NULL;
    }
    PyObject *result = NULL;
    if (overlap(&obs, &out) || overlap(&obs, &served) || overlap(&out, &served)) {
        PyErr_SetString(PyExc_ValueError, "observations, out and served must not overlap");
        goto done;
    }
    Py_ssize_t next = 0;
    fill_job jobs[TT_THREADS_MAX];
    void *each[TT_THREADS_MAX];
    const int alone = self->threads == 0 || self->busy; /* fill()'s kernels, the GIL held */
    if (alone || threads > rows) threads = alone || rows < 1 ? 1 : (long)rows;
    for (long t = 0; t < threads; t++) {
        jobs[t] = (fill_job){.P = alone ? &self->p : &self->own[t],
                             .obs = obs.buf,
                             .out = out.buf,
                             .served = served.buf,
                             .rows = rows,
                             .obs_size = self->observation_size,
                             .size = self->size,
                             .next = &next};
        each[t] = &jobs[t];
    }
    Py_ssize_t left = 0;
    if (alone) {
        fill_rows(&jobs[0]);
        left = jobs[0].left;
    } else {
        self->busy = 1;
        Py_BEGIN_ALLOW_THREADS tt_threads_run(self->pool, fill_rows, each, (int)threads);
        Py_END_ALLOW_THREADS self->busy = 0;
        for (long t = 0; t < threads; t++) left += jobs[t].left;
    }
    result = PyLong_FromSsize_t(left);
done:
    PyBuffer_Release(&obs);
    PyBuffer_Release(&out);
    PyBuffer_Release(&served);
    return result;
}

static PyObject *Features_get_threads(FeaturesObject *self, void *closure) {
    (void)closure;
    return PyLong_FromLong(self->threads);
}

static PyObject *Features_get_size(FeaturesObject *self, void *closure) {
    (void)closure;
    return PyLong_FromSsize_t(self->size);
}

static PyMethodDef Features_methods[] = {
    {"fill", (PyCFunction)(void (*)(void))Features_fill, METH_FASTCALL, fill_doc},
    {"fill_many", (PyCFunction)(void (*)(void))Features_fill_many, METH_VARARGS | METH_KEYWORDS,
     fill_many_doc},
    {"use_threads", (PyCFunction)Features_use_threads, METH_O, use_threads_doc},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Features_getset[] = {
    {"size", (getter)Features_get_size, NULL, "the length of the feature vector", NULL},
    {"threads", (getter)Features_get_threads, NULL, "the kernel sets of use_threads()", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyDoc_STRVAR(Features_doc,
             "Features(kernels, starts, observation_size, *, seats, deck, rank, same, near1,\n"
             "         near2, max_cards, discard_drawn_upcard, lookahead, candidates, margin)\n\n"
             "The card-features transform of one CardFeatures, compiled. kernels: the solver\n"
             "Kernels of wild ranks 1..13; starts, observation_size: the observation's layout\n"
             "(piece_starts(seats, PIECES)); deck: copies of each kind in play (53 integers);\n"
             "rank: the rank column (float64,\n"
             "53); same, near1, near2: the neighbour tables (int64, (53, width), padded\n"
             "with 53).");

static PyTypeObject FeaturesType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tt_env.learned._cfeatures.Features",
    .tp_basicsize = sizeof(FeaturesObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = Features_doc,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Features_init,
    .tp_dealloc = (destructor)Features_dealloc,
    .tp_methods = Features_methods,
    .tp_getset = Features_getset,
};

/* ------------------------------------------------------------------ the module */

/* A tuple of the `count` names in `names`, added to `module` as `attribute`. */
static int add_names(PyObject *module, const char *attribute, const char *const *names, int count) {
    PyObject *tuple = PyTuple_New(count);
    if (tuple == NULL) return -1;
    for (int i = 0; i < count; i++) {
        PyObject *name = PyUnicode_FromString(names[i]);
        if (name == NULL) {
            Py_DECREF(tuple);
            return -1;
        }
        PyTuple_SET_ITEM(tuple, i, name);
    }
    if (PyModule_AddObject(module, attribute, tuple) < 0) {
        Py_DECREF(tuple);
        return -1;
    }
    return 0;
}

#define NAME_OF(id, name) name,
static const char *const CARD_NAMES[] = {TT_CF_CARD_COLUMNS(NAME_OF)};
static const char *const GLOBAL_NAMES[] = {TT_CF_GLOBAL_VALUES(NAME_OF)};
static const char *const SEAT_NAMES[] = {TT_CF_SEAT_VALUES(NAME_OF)};
#undef NAME_OF

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "tt_env.learned._cfeatures",
    .m_doc = "The learned agents' card features, compiled (see tt_env.learned.features).",
    .m_size = -1,
};

PyMODINIT_FUNC PyInit__cfeatures(void) {
    if (PyType_Ready(&FeaturesType) < 0) return NULL;
    PyObject *module = PyModule_Create(&module_def);
    if (module == NULL) return NULL;
    Py_INCREF(&FeaturesType);
    if (PyModule_AddObject(module, "Features", (PyObject *)&FeaturesType) < 0) {
        Py_DECREF(&FeaturesType);
        Py_DECREF(module);
        return NULL;
    }
    PyObject *pieces = tt_piece_names();
    if (pieces == NULL || PyModule_AddObject(module, "PIECES", pieces) < 0) {
        Py_XDECREF(pieces);
        Py_DECREF(module);
        return NULL;
    }
    if (add_names(module, "CARD_FEATURES", CARD_NAMES, TT_CF_CARD_WIDTH) < 0 ||
        add_names(module, "GLOBAL_FEATURES", GLOBAL_NAMES, TT_CF_GLOBAL_WIDTH) < 0 ||
        add_names(module, "SEAT_FEATURES", SEAT_NAMES, TT_CF_SEAT_WIDTH) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
