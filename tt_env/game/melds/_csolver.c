/* tt_env.game.melds._csolver: the solver's compiled kernel as a Python extension module.

   Two types. Tables(natural, top, slots) builds the suit tables of one penalty table and owns
   the memo of the suits with several copies of a card; Kernel(tables, par, w, ws, out53, dv53,
   cards, keys) is one configuration (rules, wild rank, joker penalty) over them, with the numpy
   arrays its results are read from (tt_env.game.melds._kernel builds both). Every argument is
   checked here, before the solver (solver.h) sees it: a wrong type, shape, dtype or value
   raises TypeError or ValueError, and nothing reaches the compiled code that could make it
   read or write out of bounds.

   The workspace `ws` (tt_workspace, solver/workspace.h) is an int64 array of WS_SIZE entries
   that Python allocates; the module's WORKSPACE names its result fields (name, offset in
   bytes, shape), from the struct itself, so that Python reads them through a numpy view of the
   same layout. */

#include <stddef.h>

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "_csolver.h"
#include "util/pyargs.h"

/* The largest penalty the kernel takes: natural cards are in int16 tables (7 copies of 13
   cards of a suit stay far below TT_INF), wild cards and jokers in int64 sums of at most 255
   cards. Larger penalties are left to the Python solver (tt_env.game.melds._kernel). */
#define NATURAL_MAX 300
#define WILD_MAX 1000000000LL

/* ---------------------------------------------------------------------------- the buffers */
/* The 53 counts of a hand: bytes or bytearray (the fast path's types), else any buffer of 53
   unsigned bytes. Copied into `counts`. */
static int get_counts(PyObject *obj, uint8_t *counts, const char *what) {
    if (PyBytes_CheckExact(obj) && PyBytes_GET_SIZE(obj) == 53) {
        memcpy(counts, PyBytes_AS_STRING(obj), 53);
        return 0;
    }
    if (PyByteArray_CheckExact(obj) && PyByteArray_GET_SIZE(obj) == 53) {
        memcpy(counts, PyByteArray_AS_STRING(obj), 53);
        return 0;
    }
    Py_buffer view;
    if (!tt_get_vector(obj, &view, what, "u", 1, 53, 0)) return -1;
    memcpy(counts, view.buf, 53);
    PyBuffer_Release(&view);
    return 0;
}

/* -------------------------------------------------------------------------------- Tables */
typedef struct {
    PyObject_HEAD
    tt_tables tab;
    int64_t natural[13];
    int64_t top;
} TablesObject;

static void Tables_dealloc(TablesObject *self) {
    PyMem_Free(self->tab.TT);
    PyMem_Free(self->tab.mkeys);
    PyMem_Free(self->tab.mv);
    PyMem_Free(self->tab.mdw);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *Tables_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    static char *names[] = {"natural", "top", "slots", NULL};
    PyObject *natural;
    long long top, slots;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OLL:Tables", names, &natural, &top, &slots))
        return NULL;
    if (top != 13 && top != 14) {
        PyErr_Format(PyExc_ValueError, "top must be 13 or 14 (aces high), got %lld", top);
        return NULL;
    }
    if (slots < 2 || slots > (1LL << 24) || (slots & (slots - 1))) {
        PyErr_Format(PyExc_ValueError, "slots must be a power of two from 2 to 2**24, got %lld",
                     slots);
        return NULL;
    }
    int64_t pen[13];
    if (!tt_get_ints(natural, 13, 0, NATURAL_MAX, pen, "natural penalties")) return NULL;
    TablesObject *self = (TablesObject *)type->tp_alloc(type, 0);
    if (self == NULL) return NULL;
    self->top = top;
    memcpy(self->natural, pen, sizeof pen);
    self->tab.slots = slots;
    self->tab.TT = PyMem_Calloc((size_t)TT_MASKS * 4 * TT_NB, sizeof(int16_t));
    self->tab.mkeys = PyMem_Calloc((size_t)slots + 1, sizeof(int64_t));
    self->tab.mv = PyMem_Calloc((size_t)2 * slots * TT_NB, sizeof(int16_t));
    self->tab.mdw = PyMem_Calloc((size_t)slots * TT_NB, sizeof(int64_t));
    if (!self->tab.TT || !self->tab.mkeys || !self->tab.mv || !self->tab.mdw) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    tt_build_suit_tables(pen, top, self->tab.TT);
    tt_memo_clear(&self->tab);
    return (PyObject *)self;
}

static PyObject *Tables_get_entries(TablesObject *self, void *Py_UNUSED(closure)) {
    return PyLong_FromLongLong(self->tab.mkeys[self->tab.slots]);
}

static PyObject *Tables_get_slots(TablesObject *self, void *Py_UNUSED(closure)) {
    return PyLong_FromLongLong(self->tab.slots);
}

static PyObject *Tables_get_top(TablesObject *self, void *Py_UNUSED(closure)) {
    return PyLong_FromLongLong(self->top);
}

static PyObject *Tables_get_natural(TablesObject *self, void *Py_UNUSED(closure)) {
    PyObject *out = PyTuple_New(13);
    if (out == NULL) return NULL;
    for (int p = 0; p < 13; p++) PyTuple_SET_ITEM(out, p, PyLong_FromLongLong(self->natural[p]));
    return out;
}

static PyObject *Tables_row(TablesObject *self, PyObject *args) {
    long long mask, row;
    if (!PyArg_ParseTuple(args, "LL:row", &mask, &row)) return NULL;
    if (mask < 0 || mask >= TT_MASKS || row < 0 || row > 3) {
        PyErr_Format(PyExc_ValueError, "row(mask, row) takes a 13-bit mask and a row 0..3");
        return NULL;
    }
    PyObject *out = PyTuple_New(TT_NB);
    if (out == NULL) return NULL;
    for (int d = 0; d < TT_NB; d++)
        PyTuple_SET_ITEM(out, d, PyLong_FromLong(TT_ROW(self->tab.TT, mask, row)[d]));
    return out;
}

static PyGetSetDef Tables_getset[] = {
    {"entries", (getter)Tables_get_entries, NULL, "suits with several copies in the memo", NULL},
    {"slots", (getter)Tables_get_slots, NULL, "the memo's slots (it empties when half full)", NULL},
    {"top", (getter)Tables_get_top, NULL, "the highest position: 13, or 14 with aces high", NULL},
    {"natural", (getter)Tables_get_natural, NULL, "the natural cards' penalties, by rank", NULL},
    {NULL}};

static PyMethodDef Tables_methods[] = {
    {"row", (PyCFunction)Tables_row, METH_VARARGS,
     "row(mask, row): the table row (0 points, 1 costliest deadwood, 2 deadwood, 3 less one "
     "card) of a 13-bit suit mask, by budget 0..15"},
    {NULL}};

static PyTypeObject TablesType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tt_env.game.melds._csolver.Tables",
    .tp_doc = "Tables(natural, top, slots): the suit tables of the 13 natural penalties and the "
              "highest position, and a memo of `slots` entries for suits with several copies",
    .tp_basicsize = sizeof(TablesObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = Tables_new,
    .tp_dealloc = (destructor)Tables_dealloc,
    .tp_getset = Tables_getset,
    .tp_methods = Tables_methods,
};

/* -------------------------------------------------------------------------------- Kernel */
static void Kernel_release(tt_KernelObject *self) {
    Py_buffer *views[] = {&self->par,  &self->ws,    &self->out53,
                          &self->dv53, &self->cards, &self->keys};
    for (size_t i = 0; i < sizeof views / sizeof *views; i++)
        if (views[i]->obj != NULL) PyBuffer_Release(views[i]);
}

static void Kernel_dealloc(tt_KernelObject *self) {
    Kernel_release(self);
    Py_XDECREF(self->tables);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *Kernel_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    static char *names[] = {"tables", "par", "w", "ws", "out53", "dv53", "cards", "keys", NULL};
    PyObject *tables, *par, *ws, *out53, *dv53, *cards, *keys;
    long long w;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!OLOOOOO:Kernel", names, &TablesType, &tables,
                                     &par, &w, &ws, &out53, &dv53, &cards, &keys))
        return NULL;
    if (w < 0 || w > 12) {
        PyErr_Format(PyExc_ValueError, "w (the wild rank's position) must be 0..12, got %lld", w);
        return NULL;
    }
    tt_KernelObject *self = (tt_KernelObject *)type->tp_alloc(type, 0);
    if (self == NULL) return NULL;
    Py_INCREF(tables);
    self->tables = tables;
    if (!tt_get_vector(par, &self->par, "par", "i", 8, TT_PAR_SIZE, 0) ||
        !tt_get_vector(ws, &self->ws, "ws", "i", 8, (Py_ssize_t)TT_WS_SIZE, 1) ||
        !tt_get_vector(out53, &self->out53, "out53", "i", 8, 53, 1) ||
        !tt_get_vector(dv53, &self->dv53, "dv53", "i", 8, 53, 1) ||
        !tt_get_vector(cards, &self->cards, "cards", "u", 1, TT_ARRANGE_CARDS, 1) ||
        !tt_get_vector(keys, &self->keys, "keys", "i", 8, TT_ARRANGE_KEYS, 1)) {
        Py_DECREF(self);
        return NULL;
    }
    /* par: the penalty of every card kind, then top and all_wild_melds; its natural cards must
       be the tables' (the tables are built from them) */
    const TablesObject *t = (const TablesObject *)tables;
    const int64_t *p = self->par.buf;
    const char *bad = NULL;
    if (p[TT_P_TOP] != t->top)
        bad = "par's top is not the tables' top";
    else if (p[TT_P_ALL_WILD] != 0 && p[TT_P_ALL_WILD] != 1)
        bad = "par's all_wild_melds flag must be 0 or 1";
    else if (p[TT_P_CAP] < 0 || p[TT_P_CAP] > TT_NO_CAP)
        bad = "par's cap on wilds per meld must be 0..NO_CAP";
    else if (p[w] < 0 || p[w] > WILD_MAX || p[52] < 0 || p[52] > WILD_MAX)
        bad = "par's wild card and joker penalties must be 0..10**9";
    for (int k = 0; k < 52 && bad == NULL; k++)
        if (k % 13 != w && p[k] != t->natural[k % 13])
            bad = "par's natural penalties are not the tables' natural penalties";
    if (bad != NULL) {
        PyErr_SetString(PyExc_ValueError, bad);
        Py_DECREF(self);
        return NULL;
    }
    self->s.tab = &((TablesObject *)tables)->tab;
    self->s.par = p;
    self->s.w = w;
    self->s.ws = (tt_workspace *)self->ws.buf;
    return (PyObject *)self;
}

static int check_nargs(Py_ssize_t nargs, Py_ssize_t want, const char *name) {
    if (nargs != want) {
        PyErr_Format(PyExc_TypeError, "%s() takes %zd arguments (%zd given)", name, want, nargs);
        return -1;
    }
    return 0;
}

/* evaluate(counts, lex): the fewest penalty of the hand in mode lex (a tt_mode, 0..3, plus
   TT_GENERAL for the general search only: see solver/basics.h); -1 not certified, -3 more than
   TT_MAX_HAND cards. */
static PyObject *Kernel_evaluate(tt_KernelObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (check_nargs(nargs, 2, "evaluate") < 0) return NULL;
    long lex = PyLong_AsLong(args[1]);
    if (lex == -1 && PyErr_Occurred()) return NULL;
    long mode = lex & ~(long)TT_GENERAL;
    if (mode < TT_POINTS || mode > TT_LESS_BEST_DROP) {
        PyErr_Format(PyExc_ValueError, "lex must be 0..3, plus %d for the general search, got %ld",
                     TT_GENERAL, lex);
        return NULL;
    }
    if (get_counts(args[0], self->counts, "counts") < 0) return NULL;
    if (lex < TT_LESS_BEST_DROP) { /* the lean search first (it counts the cards too) */
        int64_t value = tt_evaluate_one(&self->s, self->counts, TT_MAX_HAND, (int)lex);
        if (value != TT_NOT_LEAN) return PyLong_FromLongLong(value);
        lex |= TT_GENERAL;
    }
    if (tt_hand_size(self->counts) > TT_MAX_HAND) return PyLong_FromLong(TT_TOO_MANY);
    return PyLong_FromLongLong(tt_evaluate(&self->s, self->counts, (int)lex));
}

/* lean(counts, lex): the lean search alone (TT_NOT_LEAN, -2, for a hand with several copies of
   a card). */
static PyObject *Kernel_lean(tt_KernelObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (check_nargs(nargs, 2, "lean") < 0) return NULL;
    long lex = PyLong_AsLong(args[1]);
    if (lex == -1 && PyErr_Occurred()) return NULL;
    if (lex < TT_POINTS || lex > TT_PLAN) {
        PyErr_Format(PyExc_ValueError, "lex must be 0..2 for the lean search, got %ld", lex);
        return NULL;
    }
    if (get_counts(args[0], self->counts, "counts") < 0) return NULL;
    return PyLong_FromLongLong(tt_evaluate_one(&self->s, self->counts, TT_MAX_CARDS, (int)lex));
}

/* values(hands, out): evaluate (points only) every row of hands ((n, 53) uint8) into out. */
static PyObject *Kernel_values(tt_KernelObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (check_nargs(nargs, 2, "values") < 0) return NULL;
    Py_buffer hands, out;
    const Py_ssize_t shape[2] = {-1, 53}; /* a hand a row */
    if (!tt_get_array(args[0], &hands, "hands", "u", 1, 2, shape, 0)) return NULL;
    Py_ssize_t n = hands.shape[0];
    if (!tt_get_vector(args[1], &out, "out", "i", 8, n, 1)) {
        PyBuffer_Release(&hands);
        return NULL;
    }
    const uint8_t *rows = hands.buf;
    int64_t *values = out.buf;
    for (Py_ssize_t i = 0; i < n; i++) {
        memcpy(self->counts, rows + 53 * i, 53);
        int64_t value = tt_evaluate_one(&self->s, self->counts, TT_MAX_CARDS, TT_POINTS);
        if (value == TT_NOT_LEAN)
            value = tt_evaluate(&self->s, self->counts, TT_POINTS | TT_GENERAL);
        values[i] = value;
    }
    PyBuffer_Release(&hands);
    PyBuffer_Release(&out);
    Py_RETURN_NONE;
}

/* discard_values(counts): tt_discard_values into out53; returns the hand's own value. */
static PyObject *Kernel_discard_values(tt_KernelObject *self, PyObject *const *args,
                                       Py_ssize_t nargs) {
    if (check_nargs(nargs, 1, "discard_values") < 0) return NULL;
    if (get_counts(args[0], self->counts, "counts") < 0) return NULL;
    return PyLong_FromLongLong(tt_discard_values(&self->s, self->counts, self->out53.buf));
}

/* after_draw(counts, weights): tt_after_draw_values into out53 and dv53. */
static PyObject *Kernel_after_draw(tt_KernelObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (check_nargs(nargs, 2, "after_draw") < 0) return NULL;
    if (get_counts(args[0], self->counts, "counts") < 0) return NULL;
    Py_buffer weights;
    if (!tt_get_vector(args[1], &weights, "weights", "i", 8, 53, 0)) return NULL;
    int64_t value = tt_after_draw_values(&self->s, self->counts, weights.buf, self->out53.buf,
                                         self->dv53.buf);
    PyBuffer_Release(&weights);
    return PyLong_FromLongLong(value);
}

/* arrange(data, kinds): tt_arrange into cards and keys, of data: 53 counts, or with kinds the
   card kinds of the hand, one byte each (-3 points for more than TT_MAX_HAND cards, -4 for a
   kind beyond 52). Returns (melds, cards in melds, deadwood cards, points). */
static PyObject *Kernel_arrange(tt_KernelObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (check_nargs(nargs, 2, "arrange") < 0) return NULL;
    int kinds = PyObject_IsTrue(args[1]);
    if (kinds < 0) return NULL;
    tt_arrangement a = {0, 0, 0, 0};
    if (kinds) {
        Py_buffer view;
        if (!tt_get_vector(args[0], &view, "kinds", "u", 1, -1, 0)) return NULL;
        const uint8_t *data = view.buf;
        memset(self->counts, 0, 53);
        if (view.len > TT_MAX_HAND) a.points = -3;
        for (Py_ssize_t i = 0; i < view.len && a.points == 0; i++) {
            if (data[i] > 52)
                a.points = -4;
            else
                self->counts[data[i]] += 1;
        }
        PyBuffer_Release(&view);
    } else if (get_counts(args[0], self->counts, "counts") < 0) {
        return NULL;
    }
    if (a.points == 0) a = tt_arrange(&self->s, self->counts, self->cards.buf, self->keys.buf);
    return Py_BuildValue("(LLLL)", (long long)a.melds, (long long)a.cards, (long long)a.dead,
                         (long long)a.points);
}

/* go_out(counts): tt_go_out (its scratch: out53); -3 for more than TT_MAX_HAND cards. */
static PyObject *Kernel_go_out(tt_KernelObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (check_nargs(nargs, 1, "go_out") < 0) return NULL;
    if (get_counts(args[0], self->counts, "counts") < 0) return NULL;
    if (tt_hand_size(self->counts) > TT_MAX_HAND) return PyLong_FromLong(TT_TOO_MANY);
    return PyLong_FromLongLong(tt_go_out(&self->s, self->counts, self->out53.buf));
}

/* A meld shape as Python's 7-tuple (kind, rank, suit, low, high, wilds, size). */
static PyObject *shape_tuple(const tt_meld_shape *m) {
    return Py_BuildValue("(iiiiiii)", m->kind, m->rank, m->suit, m->low, m->high, m->wilds,
                         m->size);
}

/* The table of lay_off(): a sequence of 7-tuples of ints into table; 1 when every value fits
   a shape's fields, 0 when some does not (the kernel does not take it), -1 with an exception. */
static int read_table(PyObject *obj, tt_meld_shape *table, Py_ssize_t *n) {
    PyObject *seq = PySequence_Fast(obj, "table must be a sequence of meld shapes");
    if (seq == NULL) return -1;
    int fits = 1;
    *n = PySequence_Fast_GET_SIZE(seq);
    if (*n > TT_LAYOFF_TABLE) fits = 0;
    for (Py_ssize_t i = 0; i < *n && fits; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
        if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 7) {
            PyErr_SetString(PyExc_TypeError,
                            "a table meld is a tuple of 7 ints (kind, rank, suit, low, high, "
                            "wilds, size)");
            Py_DECREF(seq);
            return -1;
        }
        int16_t v[7];
        for (int f = 0; f < 7; f++) {
            long long x = PyLong_AsLongLong(PyTuple_GET_ITEM(item, f));
            if (x == -1 && PyErr_Occurred()) {
                Py_DECREF(seq);
                return -1;
            }
            if (x < INT16_MIN || x > INT16_MAX) fits = 0;
            v[f] = (int16_t)x;
        }
        table[i] = (tt_meld_shape){v[0], v[1], v[2], v[3], v[4], v[5], v[6]};
    }
    Py_DECREF(seq);
    return fits;
}

/* The result of tt_lay_off as Python objects: (points, own melds as (cards, shape) pairs, the
   deadwood as bytes, the cards laid off as (table index, cards) pairs, the table's shapes). */
static PyObject *layoff_result(const tt_layoff *r, Py_ssize_t ntable) {
    PyObject *melds = PyList_New(0), *laid = PyList_New(0), *table = PyList_New(ntable);
    PyObject *result = NULL;
    if (melds == NULL || laid == NULL || table == NULL) goto done;
    for (int64_t m = 0, at = 0; m < r->nmelds; m++) {
        PyObject *pair = Py_BuildValue("(y#N)", (const char *)r->meld_cards + at,
                                       (Py_ssize_t)r->meld[m].size, shape_tuple(&r->meld[m]));
        at += r->meld[m].size;
        if (pair == NULL || PyList_Append(melds, pair) < 0) {
            Py_XDECREF(pair);
            goto done;
        }
        Py_DECREF(pair);
    }
    for (int64_t i = 0; i < r->nlaid;) {
        int64_t j = i;
        while (j < r->nlaid && r->laid_onto[j] == r->laid_onto[i]) j++;
        PyObject *pair = Py_BuildValue("(iy#)", (int)r->laid_onto[i],
                                       (const char *)r->laid_card + i, (Py_ssize_t)(j - i));
        if (pair == NULL || PyList_Append(laid, pair) < 0) {
            Py_XDECREF(pair);
            goto done;
        }
        Py_DECREF(pair);
        i = j;
    }
    for (Py_ssize_t i = 0; i < ntable; i++) {
        PyObject *shape = shape_tuple(&r->table[i]);
        if (shape == NULL) goto done;
        PyList_SET_ITEM(table, i, shape);
    }
    result = Py_BuildValue("(LOy#OO)", (long long)r->points, melds, (const char *)r->dead,
                           (Py_ssize_t)r->ndead, laid, table);
done:
    Py_XDECREF(melds);
    Py_XDECREF(laid);
    Py_XDECREF(table);
    return result;
}

/* lay_off(counts, table): tt_lay_off of the hand (53 counts) and the table (a sequence of meld
   shapes, 7-tuples: kind 0 set, 1 run, 2 wild cards only, rank, suit, low, high, wilds, size):
   see layoff_result(); None where the kernel does not take them (the Python solver does). */
static PyObject *Kernel_lay_off(tt_KernelObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (check_nargs(nargs, 2, "lay_off") < 0) return NULL;
    if (get_counts(args[0], self->counts, "counts") < 0) return NULL;
    tt_meld_shape table[TT_LAYOFF_TABLE];
    Py_ssize_t n;
    int fits = read_table(args[1], table, &n);
    if (fits < 0) return NULL;
    if (!fits) Py_RETURN_NONE;
    tt_layoff result;
    const tt_layoff_input input = {self->counts, (int64_t)n, table};
    tt_layoff_status status = tt_lay_off(&self->s, &input, &result);
    if (status == TT_LAYOFF_FAILED) {
        PyErr_SetString(PyExc_RuntimeError,
                        "the compiled lay-off's plan does not add up (a bug: please report it)");
        return NULL;
    }
    if (status != TT_LAYOFF_DONE) Py_RETURN_NONE;
    return layoff_result(&result, n);
}

static PyObject *Kernel_get_w(tt_KernelObject *self, void *Py_UNUSED(closure)) {
    return PyLong_FromLongLong(self->s.w);
}

static PyObject *Kernel_get_tables(tt_KernelObject *self, void *Py_UNUSED(closure)) {
    Py_INCREF(self->tables);
    return self->tables;
}

static PyObject *Kernel_reduce(PyObject *Py_UNUSED(self), PyObject *Py_UNUSED(args)) {
    PyErr_SetString(PyExc_TypeError,
                    "a compiled solver kernel does not pickle (it is rebuilt on first use)");
    return NULL;
}

static PyMethodDef Kernel_methods[] = {
    {"evaluate", (PyCFunction)(void (*)(void))Kernel_evaluate, METH_FASTCALL,
     "evaluate(counts, lex): the fewest penalty (-1: not certified, -3: too many cards)"},
    {"lean", (PyCFunction)(void (*)(void))Kernel_lean, METH_FASTCALL,
     "lean(counts, lex): the one-copy search alone (-2: a hand it does not take)"},
    {"values", (PyCFunction)(void (*)(void))Kernel_values, METH_FASTCALL,
     "values(hands, out): the fewest penalty of every row of hands ((n, 53) uint8) into out"},
    {"discard_values", (PyCFunction)(void (*)(void))Kernel_discard_values, METH_FASTCALL,
     "discard_values(counts): the value after each discard into out53; the hand's value"},
    {"after_draw", (PyCFunction)(void (*)(void))Kernel_after_draw, METH_FASTCALL,
     "after_draw(counts, weights): the values after each draw into out53, the discard values "
     "into dv53; the hand's value"},
    {"arrange", (PyCFunction)(void (*)(void))Kernel_arrange, METH_FASTCALL,
     "arrange(data, kinds): (melds, cards in melds, deadwood cards, points), the cards and "
     "meld keys in cards and keys"},
    {"go_out", (PyCFunction)(void (*)(void))Kernel_go_out, METH_FASTCALL,
     "go_out(counts): the discards that go out as bits (-1: not certified)"},
    {"lay_off", (PyCFunction)(void (*)(void))Kernel_lay_off, METH_FASTCALL,
     "lay_off(counts, table): redemption, (points, melds, deadwood, laid off, table after); "
     "None where the kernel does not take the hand or table"},
    {"__reduce__", Kernel_reduce, METH_NOARGS, NULL},
    {NULL}};

static PyGetSetDef Kernel_getset[] = {
    {"w", (getter)Kernel_get_w, NULL, "the wild rank's position (wild rank - 1)", NULL},
    {"tables", (getter)Kernel_get_tables, NULL, "the Tables it reads", NULL},
    {NULL}};

static PyTypeObject KernelType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tt_env.game.melds._csolver.Kernel",
    .tp_doc = "Kernel(tables, par, w, ws, out53, dv53, cards, keys): one configuration of the "
              "solver (see tt_env.game.melds._kernel)",
    .tp_basicsize = sizeof(tt_KernelObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = Kernel_new,
    .tp_dealloc = (destructor)Kernel_dealloc,
    .tp_methods = Kernel_methods,
    .tp_getset = Kernel_getset,
};

/* ------------------------------------------------------------------------- the workspace */
/* The result fields of tt_workspace as Python reads them, with their offsets and sizes taken
   from the struct itself (its scratch is not listed); columns: 0 a number, 1 a vector, 2 or
   more a matrix of that many columns. */
#define WS_FIELD(f) #f, offsetof(tt_workspace, f), sizeof(((tt_workspace *)0)->f)
static const struct {
    const char *name;
    size_t offset, size, columns;
} WS_FIELDS[] = {
    {WS_FIELD(md), 0},        {WS_FIELD(unsure), 0},     {WS_FIELD(nsets), 0},
    {WS_FIELD(set_wilds), 0}, {WS_FIELD(all_nat), 0},    {WS_FIELD(cards), 0},
    {WS_FIELD(ndead), 0},     {WS_FIELD(sets), 2},       {WS_FIELD(suits), 2},
    {WS_FIELD(dead), 1},      {WS_FIELD(dead_codes), 1},
};

/* WORKSPACE: ((name, offset in bytes, shape), ...) of the result fields, or NULL with an
   exception set. */
static PyObject *workspace_fields(void) {
    size_t n = sizeof WS_FIELDS / sizeof *WS_FIELDS;
    PyObject *out = PyTuple_New((Py_ssize_t)n);
    if (out == NULL) return NULL;
    for (size_t i = 0; i < n; i++) {
        size_t items = WS_FIELDS[i].size / sizeof(int64_t), columns = WS_FIELDS[i].columns;
        PyObject *shape;
        if (columns == 0)
            shape = PyTuple_New(0);
        else if (columns == 1)
            shape = Py_BuildValue("(n)", (Py_ssize_t)items);
        else
            shape = Py_BuildValue("(nn)", (Py_ssize_t)(items / columns), (Py_ssize_t)columns);
        PyObject *field = shape == NULL ? NULL
                                        : Py_BuildValue("(snN)", WS_FIELDS[i].name,
                                                        (Py_ssize_t)WS_FIELDS[i].offset, shape);
        if (field == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyTuple_SET_ITEM(out, (Py_ssize_t)i, field);
    }
    return out;
}

/* -------------------------------------------------------------------------------- module */
static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "tt_env.game.melds._csolver",
    .m_doc = "The meld solver's compiled kernel (solver.h); built by pip install.",
    .m_size = -1,
};

PyMODINIT_FUNC PyInit__csolver(void) {
    if (PyType_Ready(&TablesType) < 0 || PyType_Ready(&KernelType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    Py_INCREF(&TablesType);
    Py_INCREF(&KernelType);
    if (PyModule_AddObject(m, "Tables", (PyObject *)&TablesType) < 0 ||
        PyModule_AddObject(m, "Kernel", (PyObject *)&KernelType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    struct {
        const char *name;
        long value;
    } constants[] = {
        {"NB", TT_NB},
        {"MAX_HAND", TT_MAX_HAND},
        {"MAX_CARDS", TT_MAX_CARDS},
        {"MAX_WILDS", TT_MAX_WILDS},
        {"NATURAL_MAX", NATURAL_MAX},
        {"PAR_SIZE", TT_PAR_SIZE},
        {"P_TOP", TT_P_TOP},
        {"P_ALL_WILD", TT_P_ALL_WILD},
        {"P_CAP", TT_P_CAP},
        {"NO_CAP", TT_NO_CAP},
        {"LAYOFF_TABLE", TT_LAYOFF_TABLE},
        {"WS_SIZE", (long)TT_WS_SIZE},
        {"POINTS", TT_POINTS},
        {"POINTS_AND_COSTLIEST", TT_POINTS_AND_COSTLIEST},
        {"PLAN", TT_PLAN},
        {"LESS_BEST_DROP", TT_LESS_BEST_DROP},
        {"GENERAL", TT_GENERAL},
        {"ARRANGE_CARDS", TT_ARRANGE_CARDS},
        {"ARRANGE_KEYS", TT_ARRANGE_KEYS},
    };
    for (size_t i = 0; i < sizeof constants / sizeof *constants; i++) {
        if (PyModule_AddIntConstant(m, constants[i].name, constants[i].value) < 0) {
            Py_DECREF(m);
            return NULL;
        }
    }
    PyObject *fields = workspace_fields();
    if (fields == NULL || PyModule_AddObject(m, "WORKSPACE", fields) < 0) {
        Py_XDECREF(fields);
        Py_DECREF(m);
        return NULL;
    }
    if (PyModule_AddIntConstant(m, "WILD_MAX", (long)WILD_MAX) < 0 ||
#if defined(__clang__)
        PyModule_AddStringConstant(m, "COMPILER", "clang " __clang_version__) < 0
#elif defined(__GNUC__)
        PyModule_AddStringConstant(m, "COMPILER", "gcc " __VERSION__) < 0
#elif defined(_MSC_VER)
        PyModule_AddStringConstant(m, "COMPILER", "MSVC") < 0
#else
        PyModule_AddStringConstant(m, "COMPILER", "a C compiler") < 0
#endif
    ) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
