//! Monoids and semirings for kronograph (content comes with the semiring issue).
