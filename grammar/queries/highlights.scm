; extends
; TVMScript on top of Python's highlights (tree-sitter-python 0.23.6, the grammar tvms pins):
; the R. / I. / T. namespaces, the ops and builders called through them (R.add, R.nn.softmax,
; I.vdevice, T.prim_func), and vdevice strings ("cuda:0", "llvm").

; R, I, T as the namespaces of `from tvm.script import relax as R` and friends.
((attribute object: (identifier) @namespace)
  (#match? @namespace "^[RIT]$"))

; R.add(...), I.vdevice(...), T.Buffer(...): the called member.
(call function: (attribute object: (identifier) @_ns attribute: (identifier) @function.builtin)
  (#match? @_ns "^[RIT]$"))

; R.nn.softmax(...), R.memory.alloc_storage(...): a sub-namespace, then the op.
(call function: (attribute object: (attribute object: (identifier) @_ns attribute: (identifier) @namespace)
                           attribute: (identifier) @function.builtin)
  (#match? @_ns "^R$"))

; Decorators @R.function, @I.ir_module, @T.prim_func.
(decorator (attribute object: (identifier) @_ns attribute: (identifier) @attribute)
  (#match? @_ns "^[RIT]$"))

; vdevice strings: a target kind, optionally :index ("cuda:0", "llvm").
((string) @string.special
  (#match? @string.special "^\"(cuda|llvm|cpu|rocm|metal|vulkan|opencl|webgpu|hexagon)(:[0-9]+)?\"$"))
