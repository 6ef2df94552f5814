/* tt_env.learned._cfeatures: the learned agents' card features, compiled (card_features.h).

   Features(kernels, starts, observation_size, *, seats, deck, rank, same, near1, near2,
   max_cards, discard_drawn_upcard, lookahead, candidates, margin) holds the fixed parameters of
   one CardFeatures (tt_env/learned/features.py builds it; starts and observation_size are the
   layout, tt_env.encoding.observation.piece_starts(seats, PIECES)) and the solver Kernels of
   wild ranks 1..13 (tt_env.game.melds._csolver), whose configurations the transform runs;
   Features.fill(observation, out) writes the features of one observation and says whether it
   could (False: the numpy definition answers). PIECES names the observation's pieces in the
   order of the layout's starts; CARD_FEATURES, GLOBAL_FEATURES and
   SEAT_FEATURES name the values in the order this module writes them; the Python side checks
   them against tt_env/learned/_layout.py, so that a module built from older sources is not
   used.

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
#include "valuation/_knowledge.h"

/* ------------------------------------------------------------------ the Features type */

typedef struct {
    PyObject_HEAD
    tt_cf_params p;
    PyObject *kernels[TT_CF_RANKS]; /* the Kernels that p.solver points into (kept alive) */
    Py_ssize_t observation_size;
    Py_ssize_t size; /* the length of the feature vector */
    int ready;       /* __init__ succeeded: p is complete */
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

/* The solver Kernels of wild ranks 1..13, in order. */
static int read_kernels(PyObject *kernels, FeaturesObject *self) {
    PyObject *seq = PySequence_Fast(kernels, "kernels must be a sequence of 13 solver Kernels");
    if (seq == NULL) return 0;
    int ok = PySequence_Fast_GET_SIZE(seq) == TT_CF_RANKS;
    if (!ok)
        PyErr_Format(PyExc_ValueError,
                     "kernels must hold %d solver Kernels (wild ranks 1..13), not %zd", TT_CF_RANKS,
                     PySequence_Fast_GET_SIZE(seq));
    for (int i = 0; ok && i < TT_CF_RANKS; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
        char what[32];
        snprintf(what, sizeof what, "kernels[%d]", i);
        tt_KernelObject *kernel = tt_kernel_of(item, what);
        if (kernel == NULL) {
            ok = 0;
        } else if (kernel->s.w != i) {
            PyErr_Format(PyExc_ValueError, "kernels[%d] is the kernel of wild rank %lld, not %d", i,
                         (long long)kernel->s.w + 1, i + 1);
            ok = 0;
        } else {
            Py_INCREF(item);
            self->kernels[i] = item;
            self->p.solver[i] = &kernel->s;
        }
    }
    Py_DECREF(seq);
    return ok;
}

static void Features_dealloc(FeaturesObject *self) {
    for (int i = 0; i < TT_CF_RANKS; i++) Py_XDECREF(self->kernels[i]);
    Py_TYPE(self)->tp_free((PyObject *)self);
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
    self->ready = 0; /* until every argument is read (__init__ may be called again) */
    for (int i = 0; i < TT_CF_RANKS; i++) Py_CLEAR(self->kernels[i]);
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
        !read_neighbours(near2, "near2", &p->neighbours[2]) || !read_kernels(kernels, self)) {
        for (int i = 0; i < TT_CF_RANKS; i++) Py_CLEAR(self->kernels[i]);
        return -1;
    }
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

static PyObject *Features_get_size(FeaturesObject *self, void *closure) {
    (void)closure;
    return PyLong_FromSsize_t(self->size);
}

static PyMethodDef Features_methods[] = {
    {"fill", (PyCFunction)(void (*)(void))Features_fill, METH_FASTCALL, fill_doc},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Features_getset[] = {
    {"size", (getter)Features_get_size, NULL, "the length of the feature vector", NULL},
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
