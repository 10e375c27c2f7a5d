"""Module state: parameters, persistent and non-persistent buffers (RunningMean,
StatefulModule), and saving / loading a state_dict with torch.save / torch.load.

The code of the "Module State" section of PyTorch's "Modules" note, saving into a temporary
directory instead of the working directory.
Run: python examples/module_state.py
"""

import os
import tempfile

import ember as torch
from ember import nn

torch.manual_seed(0)
tmpdir = tempfile.TemporaryDirectory()  # checkpoints go here, removed at the end
tmp = tmpdir.name


# A buffer is state that is saved and moved with the module but not learned.
class RunningMean(nn.Module):
    def __init__(self, num_features, momentum=0.9):
        super().__init__()
        self.momentum = momentum
        self.register_buffer("mean", torch.zeros(num_features))

    def forward(self, x):
        # Assigning a tensor to a registered buffer name updates the buffer.
        self.mean = self.momentum * self.mean + (1.0 - self.momentum) * x
        return self.mean


m = RunningMean(4)
for _ in range(10):
    input = torch.randn(4)
    m(input)

print(m.state_dict())
print("parameters:", list(m.parameters()))

# The serialized form contains the 'mean' tensor.
torch.save(m.state_dict(), os.path.join(tmp, "mean.pt"))

m_loaded = RunningMean(4)
print(m_loaded.load_state_dict(torch.load(os.path.join(tmp, "mean.pt"))))
assert torch.all(m.mean == m_loaded.mean)
print("running mean restored")

# .to() converts buffers too.
m.to(dtype=torch.float64)
for buffer in m.named_buffers():
    print(buffer[0], buffer[1].dtype)


# Every way of registering parameters and buffers.
class StatefulModule(nn.Module):
    def __init__(self):
        super().__init__()
        # Setting an nn.Parameter as an attribute registers it as a parameter.
        self.param1 = nn.Parameter(torch.randn(2))

        # The string-based way to register a parameter.
        self.register_parameter("param2", nn.Parameter(torch.randn(3)))

        # Reserves "param3" for a parameter; None entries are left out of the state_dict.
        self.register_parameter("param3", None)

        # Registers a list of parameters.
        self.param_list = nn.ParameterList([nn.Parameter(torch.randn(2)) for i in range(3)])

        # Registers a dictionary of parameters.
        self.param_dict = nn.ParameterDict(
            {
                "foo": nn.Parameter(torch.randn(3)),
                "bar": nn.Parameter(torch.randn(4)),
            }
        )

        # A persistent buffer appears in the state_dict.
        self.register_buffer("buffer1", torch.randn(4), persistent=True)

        # A non-persistent buffer does not.
        self.register_buffer("buffer2", torch.randn(5), persistent=False)

        # Reserves "buffer3" for a buffer; left out of the state_dict while None.
        self.register_buffer("buffer3", None)

        # A submodule's parameters are parameters of this module too.
        self.linear = nn.Linear(2, 3)


m = StatefulModule()

# Save and load the state_dict.
torch.save(m.state_dict(), os.path.join(tmp, "state.pt"))
m_loaded = StatefulModule()
m_loaded.load_state_dict(torch.load(os.path.join(tmp, "state.pt")))

# "buffer2" (non-persistent), "param3" and "buffer3" (None) are not in the state_dict.
print(list(m_loaded.state_dict().keys()))
print("buffer2 differs after loading (not saved):", not torch.equal(m.buffer2, m_loaded.buffer2))
print("linear.weight restored:", torch.equal(m.linear.weight, m_loaded.linear.weight))

tmpdir.cleanup()
