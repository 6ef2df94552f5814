/* Where each named piece of a seat's observation starts in its flat vector.

   The layout itself is the observation's table of named pieces (tt_env.encoding.observation,
   OBSERVATION_PIECES): a binding reads each piece's start from that table for the number of
   players (tt_env.encoding.observation.piece_starts, in the order of the pieces below, which
   the bindings publish as PIECES) into a tt_layout, so that there is one layout; C code reads a
   piece as L->start[TT_PIECE_...]. What is written here is only what C needs to stay inside
   the vector: each piece's name and width, which tests check against the table. Per-seat pieces
   have one row per seat, in play order from the observer.

   Plain C, header only, no Python (the binding's reader is game/_layout.h). */

#ifndef TT_GAME_LAYOUT_H
#define TT_GAME_LAYOUT_H

/* The pieces, in the order of OBSERVATION_PIECES. */
enum tt_piece {
    TT_PIECE_HAND,
    TT_PIECE_DRAWN_UPCARD,
    TT_PIECE_TOP_DISCARD,
    TT_PIECE_DISCARD_BELOW,
    TT_PIECE_TABLE,
    TT_PIECE_WILD_RANK,
    TT_PIECE_CARDS_DEALT,
    TT_PIECE_ROUNDS_LEFT,
    TT_PIECE_PHASE,
    TT_PIECE_FINAL_TURN,
    TT_PIECE_STOCK_SIZE,
    TT_PIECE_TURNS_LEFT,
    TT_PIECE_KNOWN,
    TT_PIECE_HAND_SIZE,
    TT_PIECE_WENT_OUT,
    TT_PIECE_SCORE,
    TT_PIECE_TO_MOVE,
    TT_PIECE_DEALER,
    TT_PIECES
};

/* Where each piece starts in the vector, and the vector's size. */
typedef struct {
    int start[TT_PIECES];
    int size;
} tt_layout;

/* The name of a piece (OBSERVATION_PIECES' name). */
static inline const char *tt_piece_name(enum tt_piece piece) {
    static const char *const names[TT_PIECES] = {
        "hand",        "drawn_upcard", "top_discard", "discard_below", "table",      "wild_rank",
        "cards_dealt", "rounds_left",  "phase",       "final_turn",    "stock_size", "turns_left",
        "known",       "hand_size",    "went_out",    "score",         "to_move",    "dealer"};
    return names[piece];
}

/* The values of one row of a piece. */
static inline int tt_piece_width(enum tt_piece piece) {
    static const int width[TT_PIECES] = {53, 53, 53, 53, 53, 13, 13, 1, 2,
                                         1,  1,  1,  53, 1,  1,  1,  1, 1};
    return width[piece];
}

/* Whether a piece has one row per seat. */
static inline int tt_piece_per_seat(enum tt_piece piece) { return piece >= TT_PIECE_KNOWN; }

#endif /* TT_GAME_LAYOUT_H */
