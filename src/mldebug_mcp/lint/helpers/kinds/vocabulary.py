"""The names the kind analysis knows: what torch functions, modules and tensor methods make of a value."""

SOFTMAX, SIGMOID, LOG_SOFTMAX, RELU, LOGITS = "softmax", "sigmoid", "log_softmax", "relu", "logits"
PROBABILITIES = frozenset({SOFTMAX, SIGMOID})
ACTIVATIONS = frozenset({SOFTMAX, SIGMOID, LOG_SOFTMAX})

# functions whose output has a kind whatever their input
FUNCTIONS = {
    "torch.softmax": SOFTMAX, "torch.nn.functional.softmax": SOFTMAX, "torch.special.softmax": SOFTMAX,
    "torch.log_softmax": LOG_SOFTMAX, "torch.nn.functional.log_softmax": LOG_SOFTMAX,
    "torch.special.log_softmax": LOG_SOFTMAX,
    "torch.sigmoid": SIGMOID, "torch.nn.functional.sigmoid": SIGMOID, "torch.special.expit": SIGMOID,
    "torch.relu": RELU, "torch.relu_": RELU, "torch.nn.functional.relu": RELU, "torch.nn.functional.relu_": RELU,
    "torch.nn.functional.relu6": RELU,
}
# module classes whose call has a kind
MODULES = {
    "torch.nn.Softmax": SOFTMAX, "torch.nn.LogSoftmax": LOG_SOFTMAX, "torch.nn.Sigmoid": SIGMOID,
    "torch.nn.ReLU": RELU, "torch.nn.ReLU6": RELU, "torch.nn.Linear": LOGITS, "torch.nn.LazyLinear": LOGITS,
}
SEQUENTIAL = "torch.nn.Sequential"
ORDERED_DICTS = frozenset({"collections.OrderedDict", "OrderedDict"})
# modules that pass their input's meaning through: the module before them in a Sequential decides
PASS_MODULES = frozenset({"torch.nn.Dropout", "torch.nn.Identity", "torch.nn.Flatten", "torch.nn.Unflatten"})
TENSOR_METHODS = {"softmax": SOFTMAX, "log_softmax": LOG_SOFTMAX, "sigmoid": SIGMOID, "sigmoid_": SIGMOID,
                  "relu": RELU, "relu_": RELU}
# tensor methods and functions that change layout, dtype or device, not what the values mean
KEEP_METHODS = frozenset({"view", "reshape", "resize", "resize_", "squeeze", "unsqueeze", "transpose", "permute",
                          "contiguous", "flatten", "float", "double", "half", "bfloat16", "to", "cuda", "cpu",
                          "clone", "detach", "view_as", "reshape_as", "squeeze_", "unsqueeze_", "t", "type_as", "type"})
KEEP_FUNCTIONS = frozenset({"torch.flatten", "torch.reshape", "torch.squeeze", "torch.unsqueeze", "torch.transpose",
                            "torch.permute", "torch.clone", "torch.autograd.Variable",
                            "torch.nn.utils.rnn.pack_padded_sequence"})
EXP = frozenset({"torch.exp", "torch.special.exp"})
# functions that join tensors: the result has the kind its parts agree on (a decoding loop's outputs)
JOINS = frozenset({"torch.cat", "torch.concat", "torch.concatenate", "torch.stack"})
# an empty start a loop joins onto (`acc = torch.tensor([])`; `acc = torch.cat((acc, step))`): no kind of its own
EMPTY_STARTS = frozenset({"torch.tensor", "torch.Tensor", "torch.FloatTensor", "torch.empty", "torch.zeros"})
# fresh tensors a loop may fill slot by slot (`outputs[t] = step(...)`): they take the kind of what is stored
BUFFERS = frozenset({"torch.zeros", "torch.empty", "torch.ones", "torch.full", "torch.zeros_like",
                     "torch.empty_like", "torch.ones_like", "torch.full_like"})
BUFFER_METHODS = frozenset({"new_zeros", "new_empty", "new_ones", "new_full"})  # `x.new_zeros(B, T, V)`
# wrappers whose call runs the module they are given (first argument or module=): the wrapped model's output
MODULE_WRAPPERS = frozenset({
    "torch.nn.DataParallel", "torch.nn.parallel.DataParallel", "torch.nn.parallel.DistributedDataParallel",
    "torch.nn.parallel.data_parallel.DataParallel", "torch.nn.parallel.distributed.DistributedDataParallel",
    "torch.distributed.fsdp.FullyShardedDataParallel", "torch.compile", "torch.jit.script",
    "torch.nn.SyncBatchNorm.convert_sync_batchnorm",
    "copy.deepcopy", "copy.copy",  # a copy of the model runs the same forward (a federated client's local model)
})
# nn.Module methods that return the module itself
MODULE_MOVES = frozenset({"to", "cuda", "cpu", "train", "eval", "float", "double", "half", "bfloat16",
                          "requires_grad_", "to_empty", "share_memory"})
# list methods that change what a list of layers holds after it was written down
LIST_MUTATIONS = frozenset({"append", "extend", "insert", "pop", "remove", "reverse", "sort", "clear"})
DEPTH = 32
