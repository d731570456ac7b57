"""Types worked out once, in a room of their own, read by the checks, the semantics and the JS and C emitters.

`domains`: the IR's types as the semantics and the emitters use them (a column's, a literal's, an operation's;
every value of a finite domain). `static`: the type checker's lattice of static types (`Ty`). `builtins`: the
built-in functions, their signatures and result types. `infer`: the type checker itself, which infers the type
of an expression in a scope and collects every type error. `literals`: whether a literal is a value of a domain.
"""
