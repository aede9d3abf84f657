//! The workers' machinery: idle masks (and, later, sleep, deques, latches).

pub(crate) mod idle;
