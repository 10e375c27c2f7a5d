"""The "Saving and loading models" recipe: what a state_dict holds (model and optimizer), saving
for inference, saving the whole model, a general checkpoint to resume training, several models
in one file, warm-starting a different model with strict=False, and map_location.

Files go to a temporary directory. The checkpoints are in PyTorch's format: torch.load reads
them and ember.load reads PyTorch's.
Run: python examples/saving_loading.py
"""

import os
import tempfile

import ember as torch
import ember.nn.functional as F
from ember import nn, optim

torch.manual_seed(0)
tmpdir = tempfile.TemporaryDirectory()
PATH = os.path.join(tmpdir.name, "model.pt")


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = x.view(-1, 16 * 5 * 5)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x


net = Net()
optimizer = optim.SGD(net.parameters(), lr=0.001, momentum=0.9)

# ---- What is a state_dict? ----
print("Model's state_dict:")
for param_tensor in net.state_dict():
    print(param_tensor, "\t", net.state_dict()[param_tensor].size())

print("Optimizer's state_dict:")
for var_name in optimizer.state_dict():
    print(var_name, "\t", optimizer.state_dict()[var_name])

# One training step so the checkpoint has optimizer state (momentum buffers).
inputs, labels = torch.randn(4, 3, 32, 32), torch.tensor([0, 3, 1, 9])
loss = F.cross_entropy(net(inputs), labels)
optimizer.zero_grad()
loss.backward()
optimizer.step()
net.eval()
with torch.no_grad():
    reference = net(inputs)

# ---- Save / load the state_dict for inference (recommended) ----
torch.save(net.state_dict(), PATH)
model = Net()
print(model.load_state_dict(torch.load(PATH, weights_only=True)))
model.eval()  # dropout and batch norm layers to evaluation mode before inference
with torch.no_grad():
    print("same predictions:", torch.equal(model(inputs), reference))

# ---- Save / load the entire model (pickles the class by reference) ----
torch.save(net, PATH)
model = torch.load(PATH, weights_only=False)
model.eval()
with torch.no_grad():
    print("entire model:", type(model).__name__, torch.equal(model(inputs), reference))

# ---- A general checkpoint for inference and / or resuming training ----
epoch = 5
torch.save(
    {
        "epoch": epoch,
        "model_state_dict": net.state_dict(),
        "optimizer_state_dict": optimizer.state_dict(),
        "loss": loss,
    },
    PATH,
)

model = Net()
optimizer = optim.SGD(model.parameters(), lr=0.001, momentum=0.9)
checkpoint = torch.load(PATH, weights_only=True)
model.load_state_dict(checkpoint["model_state_dict"])
optimizer.load_state_dict(checkpoint["optimizer_state_dict"])
epoch = checkpoint["epoch"]
loss = checkpoint["loss"]
model.train()  # resume training
print(
    "resumed at epoch",
    epoch,
    "| loss is a tensor:",
    isinstance(loss, torch.Tensor),
    "| momentum buffers:",
    len(optimizer.state_dict()["state"]),
)

# ---- Several models in one file ----
modelA, modelB = Net(), Net()
optimizerA = optim.SGD(modelA.parameters(), lr=0.001, momentum=0.9)
optimizerB = optim.Adam(modelB.parameters(), lr=0.001)
torch.save(
    {
        "modelA_state_dict": modelA.state_dict(),
        "modelB_state_dict": modelB.state_dict(),
        "optimizerA_state_dict": optimizerA.state_dict(),
        "optimizerB_state_dict": optimizerB.state_dict(),
    },
    PATH,
)
checkpoint = torch.load(PATH, weights_only=True)
print("keys:", sorted(checkpoint))


# ---- Warm-starting a different model: strict=False ignores non-matching keys ----
class NetB(Net):
    def __init__(self):
        super().__init__()
        self.fc3 = nn.Linear(84, 2)  # a new head: its shape differs, so drop it before loading
        self.extra = nn.Linear(2, 2)


torch.save(net.state_dict(), PATH)
state = torch.load(PATH, weights_only=True)
del state["fc3.weight"], state["fc3.bias"]
netB = NetB()
result = netB.load_state_dict(state, strict=False)
print("missing:", result.missing_keys)
print("unexpected:", result.unexpected_keys)
print("conv1 warm-started:", torch.equal(netB.conv1.weight, net.conv1.weight))

# ---- map_location: load tensors saved on another device onto the CPU ----
device = torch.device("cpu")
model = Net()
model.load_state_dict(torch.load(PATH, map_location=device, weights_only=True))
print("loaded onto", next(model.parameters()).device)

tmpdir.cleanup()
