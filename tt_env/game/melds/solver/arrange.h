/* The arrangement: the best arrangement of a hand spelled out, card by card and meld by meld
   (a part of solver.h: see there). */

#ifndef TT_SOLVER_ARRANGE_H
#define TT_SOLVER_ARRANGE_H

#include "evaluate.h"

/* ------------------------------------------------------------------------- a suit's runs */
/* (points, costliest deadwood) of one suit's row at budget d: read from the table when the
   suit holds one copy of each card, else through the memo (cv, cmd, cdw: scratch rows). */
static inline int64_t tt_row_at(const tt_solver *S, int64_t code, int64_t d, int64_t *cv,
                                int64_t *cmd, int64_t *cdw, int64_t *md) {
    if ((code & TT_HI_FIELDS) == 0) {
        int64_t m = tt_mask_of(code);
        *md = TT_ROW(S->tab->TT, m, 1)[d];
        return TT_ROW(S->tab->TT, m, 0)[d];
    }
    tt_suit_row(S, code, cv, cmd, cdw);
    *md = cmd[d];
    return cv[d];
}

/* Record a run of the walk: its lowest card at index i (head h, as tt_run_span), sub the bits
   above it, lo wilds needed, n naturals. */
static inline int64_t tt_found_run(int64_t *out, int64_t at, int64_t nruns, int64_t i, int64_t h,
                                   int64_t sub, int64_t lo, int64_t n) {
    int64_t places = sub << (i + 1);
    if (h == 0)
        places |= (int64_t)1 << i;
    else if (h == 1)
        places |= (int64_t)1 << 13;
    else
        places |= 1 | ((int64_t)1 << 13);
    out[at + 3 * nruns] = places;
    out[at + 3 * nruns + 1] = lo;
    out[at + 3 * nruns + 2] = n;
    return nruns + 1;
}

/* tt_suit_runs() of a suit holding one copy of each card (13-bit m): the same walk over the
   mask, read from the tables (every hand of one deck takes it). The table's deadwood DW tells
   which cards the walk finds to be deadwood (the table kept the first best option in the
   walk's order, and its deadwood with it), so a run is looked for among the other cards
   only. */
static int64_t tt_suit_runs_one(const tt_solver *S, int64_t m, int64_t d, int64_t *out,
                                int64_t at) {
    const int16_t *TT = S->tab->TT;
    int64_t top = S->par[TT_P_TOP];
    int64_t dead = TT_ROW(TT, m, 2)[d]; /* also the deadwood of what is left after each run */
    int64_t nruns = 0;
    while (m) {
        int64_t i = tt_tz((uint64_t)m);
        int64_t rest = m & (m - 1);
        if ((dead >> i) & 1) {
            m = rest; /* the lowest card is deadwood */
            continue;
        }
        int64_t tv = TT_ROW(TT, m, 0)[d], tmd = TT_ROW(TT, m, 1)[d];
        int64_t above = (rest & ~dead) >> (i + 1);
        int found = 0;
        int64_t heads = (i == 0 && top == 14) ? 2 : 1;
        for (int64_t h = 0; h < heads && !found; h++) {
            int64_t sub = above;
            for (;;) {
                int64_t low, high, n;
                tt_run_span(i, h, sub, &low, &high, &n);
                int64_t span = high - low + 1;
                int64_t lo = tt_max(3, span) - n;
                if (span <= top && lo <= d) {
                    int64_t nxt = rest & ~(sub << (i + 1));
                    if (TT_ROW(TT, nxt, 0)[d - lo] == tv && TT_ROW(TT, nxt, 1)[d - lo] == tmd) {
                        nruns = tt_found_run(out, at, nruns, i, h, sub, lo, n);
                        m = nxt;
                        d -= lo;
                        found = 1;
                        break;
                    }
                }
                if (sub == 0) break;
                sub = (sub - 1) & above;
            }
        }
        if (!found) return -1; /* unreachable: the row was computed by these very options */
    }
    return nruns;
}

/* The runs of one suit's best arrangement at budget d (as tt_evaluate() chose it):
   out[at + 3r .. at + 3r + 2] = (natural positions as bits 0..13 for positions 1..14, wilds
   needed, naturals); returns the number of runs (ws->rows[3]: scratch rows). */
static int64_t tt_suit_runs(const tt_solver *S, int64_t code, int64_t d, int64_t *out, int64_t at) {
    d = tt_min(d, TT_NB - 1);
    if ((code & TT_HI_FIELDS) == 0) return tt_suit_runs_one(S, tt_mask_of(code), d, out, at);
    const int64_t *par = S->par;
    int64_t top = par[TT_P_TOP];
    int64_t *cv = S->ws->rows[3][0], *cmd = S->ws->rows[3][1], *cdw = S->ws->rows[3][2];
    int64_t nruns = 0;
    while (code) {
        int64_t tmd, rmd;
        int64_t tv = tt_row_at(S, code, d, cv, cmd, cdw, &tmd);
        int64_t i = 0;
        while (!tt_field(code, i)) i++;
        int64_t c0 = tt_field(code, i);
        int64_t rest = code - ((int64_t)1 << (3 * i));
        int64_t rv = tt_row_at(S, rest, d, cv, cmd, cdw, &rmd);
        if (par[i] + rv == tv && tt_max(par[i], rmd) == tmd) {
            code = rest; /* the lowest card is deadwood */
            continue;
        }
        int64_t above = 0;
        for (int64_t p = i + 1; p < 13; p++)
            if (tt_field(rest, p)) above |= (int64_t)1 << (p - i - 1);
        int64_t nheads = 1;
        if (i == 0 && top == 14) nheads = c0 >= 2 ? 3 : 2;
        int found = 0;
        for (int64_t h = 0; h < nheads && !found; h++) {
            int64_t sub = above;
            for (;;) {
                int64_t low, high, n;
                tt_run_span(i, h, sub, &low, &high, &n);
                int64_t span = high - low + 1;
                int64_t lo = tt_max(3, span) - n;
                if (span <= top && lo <= d) {
                    int64_t nxt = rest - (h == 2 ? 1 : 0);
                    int64_t x = sub;
                    while (x) {
                        nxt -= (int64_t)1 << (3 * (tt_tz((uint64_t)x) + i + 1));
                        x &= x - 1;
                    }
                    int64_t nmd;
                    int64_t nv = tt_row_at(S, nxt, d - lo, cv, cmd, cdw, &nmd);
                    if (nv == tv && nmd == tmd) {
                        nruns = tt_found_run(out, at, nruns, i, h, sub, lo, n);
                        code = nxt;
                        d -= lo;
                        found = 1;
                        break;
                    }
                }
                if (sub == 0) break;
                sub = (sub - 1) & above;
            }
        }
        if (!found) return -1; /* unreachable: the row was computed by these very options */
    }
    return nruns;
}

/* --------------------------------------------------------------------------- the arrangement */
/* A meld's shape as one integer: kind (0 set, 1 run, 2 wild cards alone), rank, suit, low,
   high, wilds and size (tt_env.game.melds._kernel.meld_of_key reads it). */
static inline int64_t tt_meld_key(int64_t kind, int64_t rank, int64_t suit, int64_t low,
                                  int64_t high, int64_t wilds, int64_t size) {
    return kind | rank << 2 | (suit + 1) << 6 | low << 9 | high << 13 | wilds << 17 | size << 24;
}

/* What tt_arrange() found: melds, cards in melds, deadwood cards, points (TT_NOT_CERTIFIED:
   not certified). */
typedef struct {
    int64_t melds, cards, dead, points;
} tt_arrangement;

/* The best arrangement of counts spelled out: the melds' cards then the deadwood in out (card
   kinds, TT_ARRANGE_CARDS; a run in position order), one key per meld in keys (TT_ARRANGE_KEYS;
   tt_meld_key: its kind, rank, suit, positions, wilds and size).

   The plan is tt_evaluate()'s (TT_PLAN): its sets, each suit's runs (walked back from the suit's
   table at the budget the plan gave it) and its deadwood. With a natural meld every wild card
   joins one: first the wilds each meld needs (a set to 3 cards, a run's gaps and length), then
   the spare ones to the first set, else to the runs while they have room (the kernel checked
   they have). Without one, the wild cards meld alone when they can (a set of the wild rank, or
   jokers only with all_wild_melds) or are deadwood. */
static inline tt_arrangement tt_arrange(const tt_solver *S, const uint8_t *counts, uint8_t *out,
                                        int64_t *keys) {
    const tt_arrangement refused = {0, 0, 0, TT_NOT_CERTIFIED};
    if (tt_capped(S)) { /* a cap: the plan of the capped search (capped.h) */
        tt_layoff plan;
        int64_t value;
        if (tt_hand_size(counts) > TT_MAX_HAND ||
            tt_capped_solve(S, counts, &value, &plan) != TT_LAYOFF_DONE)
            return refused;
        memcpy(out, plan.meld_cards, (size_t)plan.nmeld_cards);
        memcpy(out + plan.nmeld_cards, plan.dead, (size_t)plan.ndead);
        for (int64_t m = 0; m < plan.nmelds; m++) {
            const tt_meld_shape *x = &plan.meld[m];
            keys[m] = tt_meld_key(x->kind, x->rank, x->suit, x->low, x->high, x->wilds, x->size);
        }
        return (tt_arrangement){plan.nmelds, plan.nmeld_cards, plan.ndead, value};
    }
    const int64_t *par = S->par;
    tt_workspace *ws = S->ws;
    int64_t *runs = ws->arrange_runs; /* (places, wilds, naturals and suit) per run */
    const int64_t w = S->w;
    int64_t value = tt_evaluate(S, counts, TT_PLAN);
    if (value < 0) return refused;
    int64_t top = par[TT_P_TOP];
    int64_t J = counts[52];
    int64_t M = (int64_t)counts[w] + counts[13 + w] + counts[26 + w] + counts[39 + w];
    int64_t W = J + M;                  /* at most TT_MAX_WILDS: tt_evaluate() answered */
    int64_t *wilds = ws->arrange_wilds; /* jokers first, then the wild-rank cards */
    int64_t i = 0;
    for (int64_t n = 0; n < J; n++) wilds[i++] = 52;
    for (int s = 0; s < 4; s++)
        for (int64_t n = 0; n < counts[s * 13 + w]; n++) wilds[i++] = s * 13 + w;
    int64_t total = ws->cards;
    int64_t nd = ws->ndead; /* the natural deadwood (the wild cards below) */
    int meld = value < ws->all_nat;
    if (!meld && !(W && tt_wilds_meld_alone(W, M, J, par[TT_P_ALL_WILD])))
        nd += W; /* no meld at all: the wild cards are deadwood too */
    int64_t nc = total - nd;
    int64_t d = nc;
    for (int s = 0; s < 4; s++) {
        int64_t code = ws->dead_codes[s];
        while (code) {
            int64_t p = tt_tz((uint64_t)code) / 3;
            for (int64_t n = 0; n < tt_field(code, p); n++) out[d++] = (uint8_t)(s * 13 + p);
            code &= ~((int64_t)7 << (3 * p));
        }
    }
    if (!meld) {
        if (nc) { /* the wild cards meld alone */
            for (int64_t j = 0; j < W; j++) out[j] = (uint8_t)wilds[j];
            keys[0] = M >= 1 ? tt_meld_key(0, w + 1, -1, 0, 0, J, W)
                             : tt_meld_key(2, 0, -1, 0, 0, J, W);
            return (tt_arrangement){1, nc, nd, value};
        }
        for (int64_t j = 0; j < W; j++) out[d + j] = (uint8_t)wilds[j];
        return (tt_arrangement){0, 0, nd, value};
    }
    /* the sets */
    int64_t nm = 0, pos = 0, used = 0; /* used: wild cards handed out */
    int64_t nsets = ws->nsets;
    int64_t first_size = 0;
    for (int64_t k = 0; k < nsets; k++) {
        int64_t p = ws->sets[k][0];
        int64_t take = ws->sets[k][1];
        int64_t start = pos;
        for (int s = 0; s < 4; s++)
            for (int64_t n = 0; n < ((take >> (3 * s)) & 7); n++)
                out[pos++] = (uint8_t)(s * 13 + p);
        int64_t need = tt_max(0, 3 - (pos - start));
        for (int64_t n = 0; n < need; n++) out[pos++] = (uint8_t)wilds[used++];
        if (k == 0) first_size = pos;
        keys[nm++] = tt_meld_key(0, p + 1, -1, 0, 0, need, pos - start);
    }
    /* the runs of each suit, and the wilds they need */
    int64_t nr = 0;
    for (int s = 0; s < 4; s++) {
        int64_t code = ws->suits[s][0];
        int64_t budget = ws->suits[s][1];
        if (code == 0) continue;
        int64_t n = tt_suit_runs(S, code, budget, runs, nr * 3);
        if (n < 0) return refused; /* unreachable: the rows were computed by these options */
        for (int64_t r = 0; r < n; r++)
            runs[(nr + r) * 3 + 2] = runs[(nr + r) * 3 + 2] * 4 + s; /* naturals and suit */
        nr += n;
    }
    int64_t need_total = 0;
    for (int64_t r = 0; r < nr; r++) need_total += runs[r * 3 + 1];
    int64_t spare = W - used - need_total;
    if (nsets && spare > 0) { /* the spare wilds to the first set (it starts at 0) */
        for (int64_t j = pos - 1; j >= first_size; j--) out[j + spare] = out[j]; /* make room */
        for (int64_t j = 0; j < spare; j++) out[first_size + j] = (uint8_t)wilds[used++];
        pos += spare;
        keys[0] += (spare << 17) + (spare << 24); /* the same set, spare more wilds and cards */
        spare = 0;
    }
    for (int64_t r = 0; r < nr; r++) {
        int64_t places = runs[r * 3];
        int64_t lo = runs[r * 3 + 1];
        int64_t s = runs[r * 3 + 2] % 4;
        int64_t nat = runs[r * 3 + 2] / 4;
        int64_t more = 0;
        if (spare > 0) {
            more = tt_min(spare, top - (nat + lo));
            spare -= more;
        }
        int64_t k = lo + more; /* wilds in this run */
        int64_t length = nat + k;
        int64_t low = 0, high = 0;
        for (int64_t q = 0; q < 14; q++) {
            if ((places >> q) & 1) {
                if (low == 0) low = q + 1;
                high = q + 1;
            }
        }
        if (high - low + 1 < length) high = tt_min(top, low + length - 1);
        low = high - length + 1;
        int64_t j = 0, nwild = 0;
        for (int64_t q = low; q <= high; q++) {
            if ((places >> (q - 1)) & 1) {
                out[pos] = (uint8_t)(s * 13 + (q == 14 ? 0 : q - 1));
            } else {
                int64_t c = wilds[used + j];
                out[pos] = (uint8_t)c;
                j++;
                /* a wild-rank card of this suit in its own place is natural there */
                int natural = c != 52 && c / 13 == s &&
                              (c % 13 + 1 == q || (c % 13 == 0 && q == 14));
                if (!natural) nwild++;
            }
            pos++;
        }
        used += k;
        keys[nm++] = tt_meld_key(1, 0, s, low, high, nwild, length);
    }
    if (used != W || spare || pos != nc)
        return refused; /* unreachable: the kernel checked that every wild finds a place */
    return (tt_arrangement){nm, nc, nd, value};
}

#endif /* TT_SOLVER_ARRANGE_H */
