//! The board's model without a terminal or a server.
