/* The expected-penalty rule's parameters as the extension modules read them from Python.

   Two modules take the rule's parameters (ExpectedPenalty's fields) as keyword arguments: the
   rule's own (tt_env.valuation._crule, Rule) and the search agent's
   (tt_env.agents._csearch, Searcher, whose counting rollouts play the rule). Both read them
   with tt_get_rule(), so that they check them alike; the rule itself is plain C (rule.h). */

#ifndef TT_CRULE_H
#define TT_CRULE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>

#include "util/pyargs.h"
#include "valuation/rule.h"

/* The rule's parameters (lookahead, feed_cost, wild_feed_cost, candidates, margin: finite
   numbers, candidates truncated like int()) into rule, or 0 with a TypeError or ValueError
   naming the one that is not. */
static int tt_get_rule(PyObject *const *params, int discard_drawn_upcard, tt_rule *rule) {
    static const char *const names[] = {"lookahead", "feed_cost", "wild_feed_cost", "candidates",
                                        "margin"};
    double v[5];
    for (int i = 0; i < 5; i++) {
        v[i] = PyFloat_AsDouble(params[i]);
        if (v[i] == -1.0 && PyErr_Occurred()) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "%s must be a number, not %.100s", names[i],
                         Py_TYPE(params[i])->tp_name);
            return 0;
        }
        if (!isfinite(v[i])) {
            tt_bad_number(names[i], "a finite number", v[i]);
            return 0;
        }
    }
    if (!(fabs(v[3]) < 9007199254740992.0)) { /* 2**53: past it, no longer a whole number */
        tt_bad_number(names[3], "a whole number below 2**53", v[3]);
        return 0;
    }
    *rule = (tt_rule){
        .lookahead = v[0],
        .feed_cost = v[1],
        .wild_feed_cost = v[2],
        .candidates = (int64_t)v[3],
        .margin = v[4],
        .discard_drawn_upcard = discard_drawn_upcard != 0,
    };
    return 1;
}

#endif /* TT_CRULE_H */
