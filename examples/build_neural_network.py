"""The "Build the Neural Network" tutorial of PyTorch's basics: define a network as an
nn.Module, look at each layer (Flatten, Linear, ReLU, Sequential, Softmax) and at the model's
parameters.

Run: python examples/build_neural_network.py
"""

import ember as torch
from ember import nn

torch.manual_seed(0)

device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"Using {device} device")


class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(28 * 28, 512),
            nn.ReLU(),
            nn.Linear(512, 512),
            nn.ReLU(),
            nn.Linear(512, 10),
        )

    def forward(self, x):
        x = self.flatten(x)
        logits = self.linear_relu_stack(x)
        return logits


model = NeuralNetwork().to(device)
print(model)

# Calling the model returns raw logits; Softmax turns them into class probabilities.
X = torch.rand(1, 28, 28, device=device)
logits = model(X)
pred_probab = nn.Softmax(dim=1)(logits)
y_pred = pred_probab.argmax(1)
print(f"Predicted class: {y_pred}")

# ---- The layers, one at a time, on a minibatch of 3 images ----
input_image = torch.rand(3, 28, 28)
print(input_image.size())

flatten = nn.Flatten()
flat_image = flatten(input_image)
print(flat_image.size())

layer1 = nn.Linear(in_features=28 * 28, out_features=20)
hidden1 = layer1(flat_image)
print(hidden1.size())

print(f"Before ReLU: {hidden1[:, :5]}\n")
hidden1 = nn.ReLU()(hidden1)
print(f"After ReLU: {hidden1[:, :5]}")

seq_modules = nn.Sequential(
    flatten,
    layer1,
    nn.ReLU(),
    nn.Linear(20, 10),
)
input_image = torch.rand(3, 28, 28)
logits = seq_modules(input_image)

softmax = nn.Softmax(dim=1)
pred_probab = softmax(logits)
print("probabilities sum to 1:", torch.allclose(pred_probab.sum(1), torch.ones(3)))

# ---- Model parameters ----
print(f"Model structure: {model}\n")
for name, param in model.named_parameters():
    values = param[:2, :3] if param.dim() > 1 else param[:2]  # a corner of each
    print(f"Layer: {name} | Size: {param.size()} | Values : {values}")
