/* The numbers every compiled layer shares with the engine (game.h) and with Python: card kinds,
   action ids, seats. The engine, the solver's callers, the counting rule (valuation/rule.h)
   and the batch read them from here, so that there is one source in C; Python's are
   tt_env.encoding.actions (a test compares the two).

   Actions: 0 draw from the stock, 1 take the top discard, 2 + k discard card kind k, 55 + k go
   out discarding k. Card kinds: 13 * suit + position (0 the ace .. 12 the king), 52 the joker.

   Plain C, header only, no Python. */

#ifndef TT_GAME_IDS_H
#define TT_GAME_IDS_H

#define TT_KINDS 53
#define TT_JOKER 52
#define TT_ACTIONS 108
#define TT_ACT_DRAW_STOCK 0
#define TT_ACT_TAKE_DISCARD 1
#define TT_ACT_DISCARD 2
#define TT_ACT_GO_OUT 55

#define TT_MAX_SEATS 8 /* Rules: 2..8 players */

#endif /* TT_GAME_IDS_H */
