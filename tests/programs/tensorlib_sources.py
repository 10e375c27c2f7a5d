# ruff: noqa: E501, E251, E221, E231, E222, E741, UP008, UP004  (the programs are kept as their authors wrote them)
"""Real PyTorch programs that use the tensor library beyond ``torch.nn`` (sparse adjacency,
complex FFT weights, bfloat16 checkpoints, ``torch.stft``, ``torch.linalg``, ``torch.special`` and
``torch.distributions``, sparse embedding gradients, a script's device and backend preamble),
written as their authors write them (after pygcn / PyG, neuraloperator, nanoGPT, the PyTorch
quickstart, glow-pytorch, scVI, the text-classification tutorial). Each is source text starting
with ``import torch``; tests/test_tensorlib_programs.py runs it once against PyTorch and once with
``import torch`` resolving to ember. Only the sizes are small."""

# ---- 1. graph convolution (Kipf & Welling), normalized sparse adjacency ---------------------------
GCN = """
import math

import numpy as np
import scipy.sparse as sp
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parameter import Parameter
from torch.nn.modules.module import Module


class GraphConvolution(Module):
    \"\"\"Simple GCN layer, similar to https://arxiv.org/abs/1609.02907\"\"\"

    def __init__(self, in_features, out_features, bias=True):
        super(GraphConvolution, self).__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(torch.FloatTensor(in_features, out_features))
        if bias:
            self.bias = Parameter(torch.FloatTensor(out_features))
        else:
            self.register_parameter('bias', None)
        self.reset_parameters()

    def reset_parameters(self):
        stdv = 1. / math.sqrt(self.weight.size(1))
        self.weight.data.uniform_(-stdv, stdv)
        if self.bias is not None:
            self.bias.data.uniform_(-stdv, stdv)

    def forward(self, input, adj):
        support = torch.mm(input, self.weight)
        output = torch.spmm(adj, support)
        if self.bias is not None:
            return output + self.bias
        else:
            return output


class GCN(nn.Module):
    def __init__(self, nfeat, nhid, nclass, dropout):
        super(GCN, self).__init__()
        self.gc1 = GraphConvolution(nfeat, nhid)
        self.gc2 = GraphConvolution(nhid, nclass)
        self.dropout = dropout

    def forward(self, x, adj):
        x = F.relu(self.gc1(x, adj))
        x = F.dropout(x, self.dropout, training=self.training)
        x = self.gc2(x, adj)
        return F.log_softmax(x, dim=1)


def normalize_adj(edge_index, num_nodes, dtype=torch.float):
    \"\"\"D^-1/2 (A + I) D^-1/2 as a sparse COO tensor.\"\"\"
    loops = torch.arange(num_nodes).unsqueeze(0).repeat(2, 1)
    edge_index = torch.cat([edge_index, edge_index.flip(0), loops], dim=1)
    values = torch.ones(edge_index.size(1), dtype=dtype)
    adj = torch.sparse_coo_tensor(edge_index, values, (num_nodes, num_nodes)).coalesce()
    indices, values = adj.indices(), (adj.values() > 0).to(dtype)  # duplicate edges -> 1
    adj = torch.sparse_coo_tensor(indices, values, adj.shape)
    deg = torch.sparse.sum(adj, dim=1).to_dense()
    deg_inv_sqrt = deg.pow(-0.5)
    deg_inv_sqrt[torch.isinf(deg_inv_sqrt)] = 0.
    row, col = indices
    values = deg_inv_sqrt[row] * values * deg_inv_sqrt[col]
    return torch.sparse_coo_tensor(indices, values, adj.shape).coalesce()


def normalize_dense(adj):
    \"\"\"Row-normalize a dense adjacency (with self loops), then hand it over as sparse.\"\"\"
    adj = adj + torch.eye(adj.shape[0], dtype=adj.dtype)
    rowsum = adj.sum(1)
    r_inv = rowsum.pow(-1).flatten()
    r_inv[torch.isinf(r_inv)] = 0.
    r_mat_inv = torch.diag(r_inv)
    return (r_mat_inv @ adj).to_sparse()


def normalize(mx):
    \"\"\"Row-normalize sparse matrix\"\"\"
    rowsum = np.array(mx.sum(1))
    r_inv = np.power(rowsum, -1).flatten()
    r_inv[np.isinf(r_inv)] = 0.
    r_mat_inv = sp.diags(r_inv)
    mx = r_mat_inv.dot(mx)
    return mx


def sparse_mx_to_torch_sparse_tensor(sparse_mx):
    \"\"\"Convert a scipy sparse matrix to a torch sparse tensor.\"\"\"
    sparse_mx = sparse_mx.tocoo().astype(np.float64)
    indices = torch.from_numpy(
        np.vstack((sparse_mx.row, sparse_mx.col)).astype(np.int64))
    values = torch.from_numpy(sparse_mx.data)
    shape = torch.Size(sparse_mx.shape)
    return torch.sparse_coo_tensor(indices, values, shape)


def load_adjacency(edges, n):
    adj = sp.coo_matrix((np.ones(edges.shape[0]), (edges[:, 0], edges[:, 1])),
                        shape=(n, n), dtype=np.float32)
    # build symmetric adjacency matrix
    adj = adj + adj.T.multiply(adj.T > adj) - adj.multiply(adj.T > adj)
    adj = normalize(adj + sp.eye(adj.shape[0]))
    return sparse_mx_to_torch_sparse_tensor(adj)


def make_model():
    return GCN(nfeat=12, nhid=16, nclass=3, dropout=0.5)


def make_optimizer(model):
    return torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)


def accuracy(output, labels):
    preds = output.max(1)[1].type_as(labels)
    correct = preds.eq(labels).double()
    correct = correct.sum()
    return correct / len(labels)


def train(model, optimizer, features, adj, labels, idx_train):
    model.train()
    optimizer.zero_grad()
    output = model(features, adj)
    loss_train = F.nll_loss(output[idx_train], labels[idx_train])
    acc_train = accuracy(output[idx_train], labels[idx_train])
    loss_train.backward()
    optimizer.step()
    return loss_train, acc_train


class SpGraphAttentionLayer(nn.Module):
    \"\"\"GAT layer whose attention lives on the graph's edges only: a sparse score matrix,
    torch.sparse.softmax over each row, torch.sparse.mm with the node features.\"\"\"

    def __init__(self, in_features, out_features, alpha=0.2):
        super().__init__()
        self.W = nn.Parameter(torch.empty(in_features, out_features))
        self.a = nn.Parameter(torch.empty(1, 2 * out_features))
        nn.init.xavier_uniform_(self.W.data, gain=1.414)
        nn.init.xavier_uniform_(self.a.data, gain=1.414)
        self.leakyrelu = nn.LeakyReLU(alpha)

    def forward(self, input, adj):
        N = input.size()[0]
        edge = adj.coalesce().indices()
        h = torch.mm(input, self.W)
        edge_h = torch.cat((h[edge[0, :], :], h[edge[1, :], :]), dim=1).t()
        edge_e = self.leakyrelu(self.a.mm(edge_h).squeeze())
        scores = torch.sparse_coo_tensor(edge, edge_e, torch.Size([N, N]))
        attention = torch.sparse.softmax(scores, dim=1)
        return F.elu(torch.sparse.mm(attention, h))


def make_gat():
    return nn.ModuleList([SpGraphAttentionLayer(12, 8), SpGraphAttentionLayer(8, 3)])


def gat_forward(layers, x, adj):
    for layer in layers:
        x = layer(x, adj)
    return F.log_softmax(x, dim=1)
"""

# ---- 2. Fourier neural operator, 2-D (neuraloperator's fourier_2d.py) -----------------------------
FNO2D = """
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class SpectralConv2d(nn.Module):
    def __init__(self, in_channels, out_channels, modes1, modes2):
        super(SpectralConv2d, self).__init__()

        \"\"\"
        2D Fourier layer. It does FFT, linear transform, and Inverse FFT.
        \"\"\"

        self.in_channels = in_channels
        self.out_channels = out_channels
        self.modes1 = modes1 #Number of Fourier modes to multiply, at most floor(N/2) + 1
        self.modes2 = modes2

        self.scale = (1 / (in_channels * out_channels))
        self.weights1 = nn.Parameter(self.scale * torch.rand(in_channels, out_channels, self.modes1, self.modes2, dtype=torch.cfloat))
        self.weights2 = nn.Parameter(self.scale * torch.rand(in_channels, out_channels, self.modes1, self.modes2, dtype=torch.cfloat))

    # Complex multiplication
    def compl_mul2d(self, input, weights):
        # (batch, in_channel, x,y ), (in_channel, out_channel, x,y) -> (batch, out_channel, x,y)
        return torch.einsum("bixy,ioxy->boxy", input, weights)

    def forward(self, x):
        batchsize = x.shape[0]
        #Compute Fourier coeffcients up to factor of e^(- something constant)
        x_ft = torch.fft.rfft2(x)

        # Multiply relevant Fourier modes
        out_ft = torch.zeros(batchsize, self.out_channels,  x.size(-2), x.size(-1)//2 + 1, dtype=torch.cfloat, device=x.device)
        out_ft[:, :, :self.modes1, :self.modes2] = \\
            self.compl_mul2d(x_ft[:, :, :self.modes1, :self.modes2], self.weights1)
        out_ft[:, :, -self.modes1:, :self.modes2] = \\
            self.compl_mul2d(x_ft[:, :, -self.modes1:, :self.modes2], self.weights2)

        #Return to physical space
        x = torch.fft.irfft2(out_ft, s=(x.size(-2), x.size(-1)))
        return x


class FNO2d(nn.Module):
    def __init__(self, modes1, modes2,  width):
        super(FNO2d, self).__init__()

        self.modes1 = modes1
        self.modes2 = modes2
        self.width = width
        self.padding = 3 # pad the domain if input is non-periodic
        self.fc0 = nn.Linear(3, self.width) # input channel is 3: (a(x, y), x, y)

        self.conv0 = SpectralConv2d(self.width, self.width, self.modes1, self.modes2)
        self.conv1 = SpectralConv2d(self.width, self.width, self.modes1, self.modes2)
        self.w0 = nn.Conv2d(self.width, self.width, 1)
        self.w1 = nn.Conv2d(self.width, self.width, 1)

        self.fc1 = nn.Linear(self.width, 32)
        self.fc2 = nn.Linear(32, 1)

    def forward(self, x):
        grid = self.get_grid(x.shape, x.device)
        x = torch.cat((x, grid), dim=-1)
        x = self.fc0(x)
        x = x.permute(0, 3, 1, 2)
        x = F.pad(x, [0,self.padding, 0,self.padding]) # pad the domain if input is non-periodic

        x1 = self.conv0(x)
        x2 = self.w0(x)
        x = x1 + x2
        x = F.gelu(x)

        x1 = self.conv1(x)
        x2 = self.w1(x)
        x = x1 + x2

        x = x[..., :-self.padding, :-self.padding] # pad the domain if input is non-periodic
        x = x.permute(0, 2, 3, 1)
        x = self.fc1(x)
        x = F.gelu(x)
        x = self.fc2(x)
        return x

    def get_grid(self, shape, device):
        batchsize, size_x, size_y = shape[0], shape[1], shape[2]
        gridx = torch.tensor(np.linspace(0, 1, size_x), dtype=torch.float)
        gridx = gridx.reshape(1, size_x, 1, 1).repeat([batchsize, 1, size_y, 1])
        gridy = torch.tensor(np.linspace(0, 1, size_y), dtype=torch.float)
        gridy = gridy.reshape(1, 1, size_y, 1).repeat([batchsize, size_x, 1, 1])
        return torch.cat((gridx, gridy), dim=-1).to(device)


class SpectralConv1d(nn.Module):
    \"\"\"Weights stored as real (..., 2) tensors and viewed as complex in forward.\"\"\"

    def __init__(self, in_channels, out_channels, modes1):
        super(SpectralConv1d, self).__init__()
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.modes1 = modes1
        self.scale = (1 / (in_channels*out_channels))
        self.weights1 = nn.Parameter(self.scale * torch.rand(in_channels, out_channels, self.modes1, 2))

    def compl_mul1d(self, input, weights):
        return torch.einsum("bix,iox->box", input, weights)

    def forward(self, x):
        batchsize = x.shape[0]
        x_ft = torch.fft.rfft(x)
        out_ft = torch.zeros(batchsize, self.out_channels, x.size(-1)//2 + 1, device=x.device, dtype=x_ft.dtype)
        out_ft[:, :, :self.modes1] = self.compl_mul1d(x_ft[:, :, :self.modes1], torch.view_as_complex(self.weights1))
        x = torch.fft.irfft(out_ft, n=x.size(-1))
        return x


class FNO1d(nn.Module):
    def __init__(self, modes, width):
        super(FNO1d, self).__init__()
        self.fc0 = nn.Linear(2, width)
        self.conv0 = SpectralConv1d(width, width, modes)
        self.w0 = nn.Conv1d(width, width, 1)
        self.fc1 = nn.Linear(width, 1)

    def forward(self, x):
        grid = torch.linspace(0, 1, x.shape[1], dtype=x.dtype).reshape(1, -1, 1).repeat([x.shape[0], 1, 1])
        x = self.fc0(torch.cat((x, grid), dim=-1)).permute(0, 2, 1)
        x = F.gelu(self.conv0(x) + self.w0(x))
        return self.fc1(x.permute(0, 2, 1))


def make_model_1d():
    return FNO1d(5, 8)


class LpLoss(object):
    def __init__(self, d=2, p=2, size_average=True, reduction=True):
        super(LpLoss, self).__init__()
        self.d = d
        self.p = p
        self.reduction = reduction
        self.size_average = size_average

    def rel(self, x, y):
        num_examples = x.size()[0]
        diff_norms = torch.norm(x.reshape(num_examples,-1) - y.reshape(num_examples,-1), self.p, 1)
        y_norms = torch.norm(y.reshape(num_examples,-1), self.p, 1)
        if self.reduction:
            if self.size_average:
                return torch.mean(diff_norms/y_norms)
            else:
                return torch.sum(diff_norms/y_norms)
        return diff_norms/y_norms

    def __call__(self, x, y):
        return self.rel(x, y)


def make_model():
    return FNO2d(4, 4, 8)


def make_optimizer(model):
    return torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=1e-4)


myloss = LpLoss(size_average=False)


def train_step(model, optimizer, x, y):
    optimizer.zero_grad()
    out = model(x).reshape(x.shape[0], x.shape[1], x.shape[2])
    l2 = myloss(out.view(x.shape[0], -1), y.view(x.shape[0], -1))
    l2.backward()
    optimizer.step()
    return l2
"""

# ---- 3. a script's first lines: device, backends, seeds, threads (PyTorch quickstart) --------------
PREAMBLE = """
from contextlib import nullcontext

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
device_type = 'cuda' if 'cuda' in str(device) else 'cpu'
dtype = 'bfloat16' if torch.cuda.is_available() and torch.cuda.is_bf16_supported() else 'float32'
ptdtype = {'float32': torch.float32, 'bfloat16': torch.bfloat16, 'float16': torch.float16}[dtype]
ctx = nullcontext() if device_type == 'cpu' else torch.amp.autocast(device_type=device_type, dtype=ptdtype)
torch.backends.cudnn.benchmark = True
torch.backends.cudnn.deterministic = False
torch.backends.cuda.matmul.allow_tf32 = True
torch.backends.cudnn.allow_tf32 = True
torch.set_float32_matmul_precision("high")
torch.manual_seed(0)
torch.cuda.manual_seed_all(0)
torch.use_deterministic_algorithms(True)
if torch.backends.mps.is_available():
    device = torch.device("mps")
torch.set_num_threads(1)
torch.autograd.set_detect_anomaly(False)
torch.cuda.empty_cache()
print(f"Using {device} device, {torch.get_num_threads()} thread(s), {torch.cuda.device_count()} GPUs")


class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(8*8, 32),
            nn.ReLU(),
            nn.Linear(32, 32),
            nn.ReLU(),
            nn.Linear(32, 10)
        )

    def forward(self, x):
        x = self.flatten(x)
        logits = self.linear_relu_stack(x)
        return logits


def make_model():
    return NeuralNetwork().to(device)


loss_fn = nn.CrossEntropyLoss()


def make_optimizer(model):
    return torch.optim.SGD(model.parameters(), lr=1e-1, momentum=0.9)


# initialize a GradScaler. If enabled=False scaler is a no-op
scaler = torch.amp.GradScaler(enabled=(dtype == 'float16'))


def train(dataloader, model, loss_fn, optimizer):
    model.train()
    losses = []
    for batch, (X, y) in enumerate(dataloader):
        X, y = X.to(device, non_blocking=True), y.to(device, non_blocking=True)

        # Compute prediction error
        with ctx:
            pred = model(X)
            loss = loss_fn(pred, y)

        # Backpropagation
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad(set_to_none=True)
        losses.append(loss.item())
    return losses


def test(dataloader, model, loss_fn):
    size = len(dataloader.dataset)
    num_batches = len(dataloader)
    model.eval()
    test_loss, correct = 0, 0
    with torch.no_grad():
        for X, y in dataloader:
            X, y = X.to(device), y.to(device)
            pred = model(X)
            test_loss += loss_fn(pred, y).item()
            correct += (pred.argmax(1) == y).type(torch.float).sum().item()
    test_loss /= num_batches
    correct /= size
    return test_loss, correct


def make_loader(X, y, batch_size=8):
    return DataLoader(TensorDataset(X, y), batch_size=batch_size, shuffle=False,
                      pin_memory=torch.cuda.is_available())
"""

# ---- 4. a small GPT in bfloat16: checkpoint, greedy generation, autocast training (nanoGPT) --------
BF16_GPT = """
import math
from dataclasses import dataclass

import torch
import torch.nn as nn
from torch.nn import functional as F


class CausalSelfAttention(nn.Module):

    def __init__(self, config):
        super().__init__()
        assert config.n_embd % config.n_head == 0
        self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd, bias=config.bias)
        self.c_proj = nn.Linear(config.n_embd, config.n_embd, bias=config.bias)
        self.n_head = config.n_head
        self.n_embd = config.n_embd
        self.register_buffer("bias", torch.tril(torch.ones(config.block_size, config.block_size))
                                    .view(1, 1, config.block_size, config.block_size))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v  = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:,:,:T,:T] == 0, float('-inf'))
        att = F.softmax(att, dim=-1)
        y = att @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)


class MLP(nn.Module):

    def __init__(self, config):
        super().__init__()
        self.c_fc    = nn.Linear(config.n_embd, 4 * config.n_embd, bias=config.bias)
        self.gelu    = nn.GELU()
        self.c_proj  = nn.Linear(4 * config.n_embd, config.n_embd, bias=config.bias)

    def forward(self, x):
        return self.c_proj(self.gelu(self.c_fc(x)))


class Block(nn.Module):

    def __init__(self, config):
        super().__init__()
        self.ln_1 = nn.LayerNorm(config.n_embd, bias=config.bias)
        self.attn = CausalSelfAttention(config)
        self.ln_2 = nn.LayerNorm(config.n_embd, bias=config.bias)
        self.mlp = MLP(config)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        x = x + self.mlp(self.ln_2(x))
        return x


@dataclass
class GPTConfig:
    block_size: int = 16
    vocab_size: int = 48
    n_layer: int = 2
    n_head: int = 2
    n_embd: int = 32
    bias: bool = True


class GPT(nn.Module):

    def __init__(self, config):
        super().__init__()
        self.config = config
        self.transformer = nn.ModuleDict(dict(
            wte = nn.Embedding(config.vocab_size, config.n_embd),
            wpe = nn.Embedding(config.block_size, config.n_embd),
            h = nn.ModuleList([Block(config) for _ in range(config.n_layer)]),
            ln_f = nn.LayerNorm(config.n_embd, bias=config.bias),
        ))
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        self.transformer.wte.weight = self.lm_head.weight
        self.apply(self._init_weights)
        for pn, p in self.named_parameters():
            if pn.endswith('c_proj.weight'):
                torch.nn.init.normal_(p, mean=0.0, std=0.02/math.sqrt(2 * config.n_layer))

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                torch.nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def forward(self, idx, targets=None):
        device = idx.device
        b, t = idx.size()
        pos = torch.arange(0, t, dtype=torch.long, device=device)
        tok_emb = self.transformer.wte(idx)
        pos_emb = self.transformer.wpe(pos)
        x = tok_emb + pos_emb
        for block in self.transformer.h:
            x = block(x)
        x = self.transformer.ln_f(x)
        if targets is not None:
            logits = self.lm_head(x)
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
        else:
            logits = self.lm_head(x[:, [-1], :])
            loss = None
        return logits, loss

    @torch.no_grad()
    def generate(self, idx, max_new_tokens):
        for _ in range(max_new_tokens):
            idx_cond = idx if idx.size(1) <= self.config.block_size else idx[:, -self.config.block_size:]
            logits, _ = self(idx_cond)
            logits = logits[:, -1, :]
            idx_next = torch.argmax(logits, dim=-1, keepdim=True)
            idx = torch.cat((idx, idx_next), dim=1)
        return idx


def make_model():
    return GPT(GPTConfig())


def save_checkpoint(model, path):
    model = model.to(torch.bfloat16)
    torch.save({'model': model.state_dict(), 'config': vars(model.config), 'iter_num': 100}, path)


def load_checkpoint(path, device='cpu'):
    checkpoint = torch.load(path, map_location=device)
    model = GPT(GPTConfig(**checkpoint['config']))
    state_dict = checkpoint['model']
    unwanted_prefix = '_orig_mod.'
    for k, v in list(state_dict.items()):
        if k.startswith(unwanted_prefix):
            state_dict[k[len(unwanted_prefix):]] = state_dict.pop(k)
    model.load_state_dict(state_dict)
    model.to(torch.bfloat16)
    model.eval()
    return model


@torch.no_grad()
def bf16_logits(model, idx):
    return model(idx, idx)[0]


def make_optimizer(model):
    return torch.optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.95), weight_decay=0.1)


def train_step_autocast(model, optimizer, X, Y):
    ctx = torch.autocast(device_type='cpu', dtype=torch.bfloat16)
    with ctx:
        logits, loss = model(X, Y)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    return logits, loss
"""

# ---- 5. audio classification on STFT magnitudes ----------------------------------------------------
AUDIO = """
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def hz_to_mel(f):
    return 2595.0 * math.log10(1.0 + f / 700.0)


def mel_filterbank(n_freqs, n_mels, sample_rate, f_min=0.0, f_max=None):
    f_max = f_max or sample_rate / 2
    all_freqs = torch.linspace(0, sample_rate // 2, n_freqs)
    m_pts = torch.linspace(hz_to_mel(f_min), hz_to_mel(f_max), n_mels + 2)
    f_pts = 700.0 * (10 ** (m_pts / 2595.0) - 1.0)
    f_diff = f_pts[1:] - f_pts[:-1]
    slopes = f_pts.unsqueeze(0) - all_freqs.unsqueeze(1)  # (n_freqs, n_mels + 2)
    down_slopes = (-1.0 * slopes[:, :-2]) / f_diff[:-1]
    up_slopes = slopes[:, 2:] / f_diff[1:]
    fb = torch.max(torch.zeros(1), torch.min(down_slopes, up_slopes))
    return fb  # (n_freqs, n_mels)


class AudioClassifier(nn.Module):
    def __init__(self, n_fft=64, hop_length=16, n_mels=16, sample_rate=8000, n_classes=4):
        super().__init__()
        self.n_fft = n_fft
        self.hop_length = hop_length
        self.preemphasis = nn.Parameter(torch.tensor(0.97))
        self.register_buffer('window', torch.hann_window(n_fft))
        self.register_buffer('mel_fb', mel_filterbank(n_fft // 2 + 1, n_mels, sample_rate))
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, kernel_size=3, padding=1),
            nn.BatchNorm2d(8),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(8, 16, kernel_size=3, padding=1),
            nn.ReLU(),
            nn.AdaptiveAvgPool2d((1, 1)),
        )
        self.classifier = nn.Linear(16, n_classes)

    def spectrogram(self, wav):
        wav = torch.cat([wav[:, :1], wav[:, 1:] - self.preemphasis * wav[:, :-1]], dim=1)
        spec = torch.stft(wav, n_fft=self.n_fft, hop_length=self.hop_length, win_length=self.n_fft,
                          window=self.window, center=True, pad_mode='reflect', normalized=False,
                          onesided=True, return_complex=True)
        power = spec.abs().pow(2.0)                                # (batch, freq, time)
        mel = torch.matmul(power.transpose(1, 2), self.mel_fb).transpose(1, 2)  # (batch, mel, time)
        return torch.log(mel + 1e-6)

    def resynthesize(self, wav):
        spec = torch.stft(wav, self.n_fft, self.hop_length, window=self.window, return_complex=True)
        return torch.istft(spec, self.n_fft, self.hop_length, window=self.window, length=wav.shape[-1])

    def forward(self, wav):
        x = self.spectrogram(wav).unsqueeze(1)
        x = (x - x.mean(dim=(2, 3), keepdim=True)) / (x.std(dim=(2, 3), keepdim=True) + 1e-5)
        x = self.features(x)
        return self.classifier(torch.flatten(x, 1))


def make_model():
    return AudioClassifier()


criterion = nn.CrossEntropyLoss()


def make_optimizer(model):
    return torch.optim.Adam(model.parameters(), lr=1e-3)


def train_step(model, optimizer, wav, labels):
    optimizer.zero_grad()
    loss = criterion(model(wav), labels)
    loss.backward()
    optimizer.step()
    return loss
"""

# ---- 6a. Gaussian-process regression, exact marginal likelihood ----------------------------------
GP = """
import math

import torch
import torch.nn as nn


def psd_safe_cholesky(A, jitter=1e-6, max_tries=3):
    L, info = torch.linalg.cholesky_ex(A)
    if not torch.any(info):
        return L
    Aprime = A.clone()
    jitter_prev = 0
    for i in range(max_tries):
        jitter_new = jitter * (10 ** i)
        Aprime.diagonal(dim1=-2, dim2=-1).add_(jitter_new - jitter_prev)
        jitter_prev = jitter_new
        L, info = torch.linalg.cholesky_ex(Aprime)
        if not torch.any(info):
            return L
    raise ValueError(f"Matrix not positive definite after repeatedly adding jitter up to {jitter_new:.1e}.")


class ExactGP(nn.Module):
    def __init__(self):
        super().__init__()
        self.log_lengthscale = nn.Parameter(torch.tensor([0.0, 0.3]))
        self.log_outputscale = nn.Parameter(torch.tensor(0.0))
        self.log_noise = nn.Parameter(torch.tensor(-2.0))

    def kernel(self, x1, x2):
        ls = self.log_lengthscale.exp()
        sqdist = torch.cdist(x1 / ls, x2 / ls).pow(2)
        return self.log_outputscale.exp() * torch.exp(-0.5 * sqdist)

    def neg_mll(self, x, y):
        n = x.shape[0]
        K = self.kernel(x, x) + (self.log_noise.exp() + 1e-6) * torch.eye(n, dtype=x.dtype)
        L = psd_safe_cholesky(K)
        alpha = torch.cholesky_solve(y.unsqueeze(-1), L)
        data_fit = 0.5 * (y.unsqueeze(-1) * alpha).sum()
        complexity = torch.log(torch.diagonal(L)).sum()
        return (data_fit + complexity + 0.5 * n * math.log(2 * math.pi)) / n

    def neg_mll_mvn(self, x, y):
        K = self.kernel(x, x) + (self.log_noise.exp() + 1e-6) * torch.eye(x.shape[0], dtype=x.dtype)
        prior = torch.distributions.MultivariateNormal(torch.zeros_like(y), covariance_matrix=K)
        return -prior.log_prob(y) / x.shape[0]

    @torch.no_grad()
    def predict(self, x, y, x_test):
        n = x.shape[0]
        K = self.kernel(x, x) + (self.log_noise.exp() + 1e-6) * torch.eye(n, dtype=x.dtype)
        L = torch.linalg.cholesky(K)
        K_s = self.kernel(x, x_test)
        alpha = torch.cholesky_solve(y.unsqueeze(-1), L)
        mean = (K_s.T @ alpha).squeeze(-1)
        v = torch.linalg.solve_triangular(L, K_s, upper=False)
        var = self.log_outputscale.exp() - (v * v).sum(0)
        return mean, var, torch.logdet(K)


def make_model():
    return ExactGP()


def fit(model, x, y, steps):
    optimizer = torch.optim.Adam(model.parameters(), lr=0.1)
    losses = []
    for i in range(steps):
        optimizer.zero_grad()
        loss = model.neg_mll(x, y)
        loss.backward()
        optimizer.step()
        losses.append(loss.detach().clone())
    return losses
"""

# ---- 6b. orthogonality: QR-parametrized weights and an SVD / Frobenius penalty ---------------------
ORTHO = """
import torch
import torch.nn as nn
import torch.nn.functional as F


class OrthogonalLinear(nn.Module):
    \"\"\"A linear map whose weight is the Q factor of an unconstrained matrix.\"\"\"

    def __init__(self, features):
        super().__init__()
        self.A = nn.Parameter(torch.randn(features, features))
        self.bias = nn.Parameter(torch.zeros(features))

    def weight(self):
        q, r = torch.linalg.qr(self.A)
        return q * torch.sign(torch.diagonal(r)).unsqueeze(0)

    def forward(self, x):
        return F.linear(x, self.weight(), self.bias)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(10, 16)
        self.orth = OrthogonalLinear(16)
        self.fc2 = nn.Linear(16, 16)
        self.fc3 = nn.Linear(16, 3)

    def forward(self, x):
        x = torch.tanh(self.fc1(x))
        x = torch.tanh(self.orth(x))
        x = torch.tanh(self.fc2(x))
        return self.fc3(x)


def orthogonality_penalty(model):
    reg = 0.0
    for name, W in model.named_parameters():
        if 'weight' in name and W.ndim == 2 and name != 'fc3.weight':
            WtW = W.t() @ W
            I = torch.eye(W.shape[1], dtype=W.dtype, device=W.device)
            reg = reg + torch.linalg.matrix_norm(WtW - I, ord='fro') ** 2
    return reg


def spectral_penalty(W):
    # SRIP-style: largest singular value of W^T W - I
    U, S, Vh = torch.linalg.svd(W.t() @ W - torch.eye(W.shape[1], dtype=W.dtype), full_matrices=False)
    return S[0] + torch.linalg.svdvals(W).max() - torch.linalg.matrix_norm(W, ord=2)


def make_model():
    return Net()


def train_step(model, optimizer, x, y, lam=1e-2):
    optimizer.zero_grad()
    out = model(x)
    loss = F.cross_entropy(out, y) + lam * orthogonality_penalty(model) + lam * spectral_penalty(model.fc2.weight)
    loss.backward()
    optimizer.step()
    return loss
"""

# ---- 6c. Glow: invertible 1x1 convolutions (plain and LU-decomposed), ActNorm ---------------------
GLOW = """
import math

import torch
from torch import nn
from torch.nn import functional as F

logabs = lambda x: torch.log(torch.abs(x))


class ActNorm(nn.Module):
    def __init__(self, in_channel, logdet=True):
        super().__init__()
        self.loc = nn.Parameter(torch.zeros(1, in_channel, 1, 1))
        self.scale = nn.Parameter(torch.ones(1, in_channel, 1, 1))
        self.register_buffer("initialized", torch.tensor(0, dtype=torch.uint8))
        self.logdet = logdet

    def initialize(self, input):
        with torch.no_grad():
            flatten = input.permute(1, 0, 2, 3).contiguous().view(input.shape[1], -1)
            mean = (flatten.mean(1).unsqueeze(1).unsqueeze(2).unsqueeze(3).permute(1, 0, 2, 3))
            std = (flatten.std(1).unsqueeze(1).unsqueeze(2).unsqueeze(3).permute(1, 0, 2, 3))
            self.loc.data.copy_(-mean)
            self.scale.data.copy_(1 / (std + 1e-6))

    def forward(self, input):
        _, _, height, width = input.shape
        if self.initialized.item() == 0:
            self.initialize(input)
            self.initialized.fill_(1)
        log_abs = logabs(self.scale)
        logdet = height * width * torch.sum(log_abs)
        return self.scale * (input + self.loc), logdet

    def reverse(self, output):
        return output / self.scale - self.loc


class InvConv2d(nn.Module):
    def __init__(self, in_channel):
        super().__init__()
        weight = torch.randn(in_channel, in_channel)
        q, _ = torch.linalg.qr(weight)
        weight = q.unsqueeze(2).unsqueeze(3)
        self.weight = nn.Parameter(weight)

    def forward(self, input):
        _, _, height, width = input.shape
        out = F.conv2d(input, self.weight)
        logdet = (height * width * torch.slogdet(self.weight.squeeze().double())[1].float())
        return out, logdet

    def reverse(self, output):
        return F.conv2d(output, self.weight.squeeze().inverse().unsqueeze(2).unsqueeze(3))


class InvConv2dLU(nn.Module):
    def __init__(self, in_channel):
        super().__init__()
        weight = torch.randn(in_channel, in_channel)
        q, _ = torch.linalg.qr(weight)
        w_p, w_l, w_u = torch.linalg.lu(q)
        w_s = torch.diag(w_u)
        w_u = torch.triu(w_u, 1)
        u_mask = torch.triu(torch.ones_like(w_u), 1)
        l_mask = u_mask.T

        self.register_buffer("w_p", w_p)
        self.register_buffer("u_mask", u_mask)
        self.register_buffer("l_mask", l_mask)
        self.register_buffer("s_sign", torch.sign(w_s))
        self.register_buffer("l_eye", torch.eye(l_mask.shape[0]))
        self.w_l = nn.Parameter(w_l)
        self.w_s = nn.Parameter(logabs(w_s))
        self.w_u = nn.Parameter(w_u)

    def forward(self, input):
        _, _, height, width = input.shape
        weight = self.calc_weight()
        out = F.conv2d(input, weight)
        logdet = height * width * torch.sum(self.w_s)
        return out, logdet

    def calc_weight(self):
        weight = (
            self.w_p
            @ (self.w_l * self.l_mask + self.l_eye)
            @ ((self.w_u * self.u_mask) + torch.diag(self.s_sign * torch.exp(self.w_s)))
        )
        return weight.unsqueeze(2).unsqueeze(3)

    def reverse(self, output):
        weight = self.calc_weight().squeeze()
        LU, pivots = torch.linalg.lu_factor(weight)
        b, c, h, w = output.shape
        z = output.permute(0, 2, 3, 1).reshape(-1, c, 1)
        x = torch.linalg.lu_solve(LU, pivots, z)
        return x.reshape(b, h, w, c).permute(0, 3, 1, 2)


class Flow(nn.Module):
    def __init__(self, in_channel, conv_lu=True):
        super().__init__()
        self.actnorm = ActNorm(in_channel)
        self.invconv = InvConv2dLU(in_channel) if conv_lu else InvConv2d(in_channel)
        self.coupling = nn.Sequential(
            nn.Conv2d(in_channel // 2, 16, 3, padding=1), nn.ReLU(inplace=True),
            nn.Conv2d(16, in_channel, 3, padding=1))

    def forward(self, input):
        out, logdet = self.actnorm(input)
        out, det1 = self.invconv(out)
        in_a, in_b = out.chunk(2, 1)
        log_s, t = self.coupling(in_a).chunk(2, 1)
        s = torch.sigmoid(log_s + 2)
        out_b = (in_b + t) * s
        det2 = torch.sum(torch.log(s).view(input.shape[0], -1), 1)
        return torch.cat([in_a, out_b], 1), logdet + det1 + det2

    def reverse(self, output):
        out_a, out_b = output.chunk(2, 1)
        log_s, t = self.coupling(out_a).chunk(2, 1)
        s = torch.sigmoid(log_s + 2)
        in_b = out_b / s - t
        return self.actnorm.reverse(self.invconv.reverse(torch.cat([out_a, in_b], 1)))


class Glow(nn.Module):
    def __init__(self, in_channel, n_flow, conv_lu=True):
        super().__init__()
        self.flows = nn.ModuleList([Flow(in_channel, conv_lu) for _ in range(n_flow)])

    def forward(self, x):
        logdet = 0
        for flow in self.flows:
            x, det = flow(x)
            logdet = logdet + det
        log_p = (-0.5 * (math.log(2 * math.pi) + x ** 2)).view(x.shape[0], -1).sum(1)
        return x, log_p, logdet

    def reverse(self, z):
        for flow in self.flows[::-1]:
            z = flow.reverse(z)
        return z


def make_model(conv_lu=True):
    return Glow(4, 2, conv_lu)


def calc_loss(log_p, logdet, image_size, n_bins=256):
    n_pixel = image_size * image_size * 4
    loss = -math.log(n_bins) * n_pixel
    loss = loss + logdet + log_p
    return (-loss / (math.log(2) * n_pixel)).mean()


def train_step(model, optimizer, image):
    optimizer.zero_grad()
    z, log_p, logdet = model(image)
    loss = calc_loss(log_p, logdet, image.shape[-1])
    loss.backward()
    optimizer.step()
    return loss, z
"""

# ---- 7. count and proportion regression: lgamma, digamma, torch.distributions --------------------
COUNTS = """
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Beta, NegativeBinomial, Poisson, kl_divergence


def log_nb_positive(x, mu, theta, eps=1e-8):
    \"\"\"Log likelihood of a negative binomial with mean mu and inverse dispersion theta.\"\"\"
    if theta.ndimension() == 1:
        theta = theta.view(1, theta.size(0))
    log_theta_mu_eps = torch.log(theta + mu + eps)
    res = (
        theta * (torch.log(theta + eps) - log_theta_mu_eps)
        + x * (torch.log(mu + eps) - log_theta_mu_eps)
        + torch.lgamma(x + theta)
        - torch.lgamma(theta)
        - torch.lgamma(x + 1)
    )
    return res


def beta_log_prob(p, a, b):
    return (torch.special.xlogy(a - 1, p) + torch.special.xlog1py(b - 1, -p)
            - (torch.special.gammaln(a) + torch.special.gammaln(b) - torch.special.gammaln(a + b)))


def beta_entropy(a, b):
    total = a + b
    return (torch.lgamma(a) + torch.lgamma(b) - torch.lgamma(total)
            - (a - 1) * torch.digamma(a) - (b - 1) * torch.digamma(b)
            + (total - 2) * torch.special.digamma(total))


class CountModel(nn.Module):
    def __init__(self, n_in, n_genes):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(n_in, 16), nn.Softplus())
        self.mu = nn.Linear(16, n_genes)
        self.log_theta = nn.Parameter(torch.zeros(n_genes))
        self.rate = nn.Linear(16, 1)
        self.ab = nn.Linear(16, 2)

    def forward(self, x):
        h = self.encoder(x)
        mu = F.softplus(self.mu(h))
        rate = torch.exp(self.rate(h)).squeeze(-1)
        a, b = F.softplus(self.ab(h)).add(0.5).unbind(-1)
        return mu, self.log_theta.exp(), rate, a, b


def make_model():
    return CountModel(6, 5)


def loss_fn(model, x, counts, events, frac):
    mu, theta, rate, a, b = model(x)
    nb = -log_nb_positive(counts, mu, theta).sum(-1).mean()
    nb_dist = NegativeBinomial(total_count=theta, logits=(mu + 1e-8).log() - (theta + 1e-8).log())
    nb_builtin = -nb_dist.log_prob(counts).sum(-1).mean()
    pois = -Poisson(rate).log_prob(events).mean()
    pois_builtin = F.poisson_nll_loss(torch.log(rate), events, log_input=True, full=True)
    beta = -Beta(a, b).log_prob(frac).mean()
    beta_manual = -beta_log_prob(frac, a, b).mean()
    kl = kl_divergence(Beta(a, b), Beta(torch.ones_like(a), torch.ones_like(b))).mean()
    ent = beta_entropy(a, b).mean() - Beta(a, b).entropy().mean()
    loss = nb + pois + beta + 0.1 * kl
    return loss, (nb, nb_builtin, pois, pois_builtin, beta, beta_manual, kl, ent)


def make_optimizer(model):
    return torch.optim.Adam(model.parameters(), lr=1e-2)
"""

# ---- 8. bag of words with sparse embedding gradients (SparseAdam + Adam) ---------------------------
SPARSE_BOW = """
import torch
import torch.nn as nn
import torch.nn.functional as F


class TextClassificationModel(nn.Module):
    def __init__(self, vocab_size, embed_dim, num_class):
        super(TextClassificationModel, self).__init__()
        self.embedding = nn.EmbeddingBag(vocab_size, embed_dim, sparse=True)
        self.word = nn.Embedding(vocab_size, embed_dim, sparse=True, padding_idx=0)
        self.fc = nn.Linear(2 * embed_dim, num_class)
        self.init_weights()

    def init_weights(self):
        initrange = 0.5
        self.embedding.weight.data.uniform_(-initrange, initrange)
        self.fc.weight.data.uniform_(-initrange, initrange)
        self.fc.bias.data.zero_()

    def forward(self, text, offsets, padded):
        bag = self.embedding(text, offsets)
        mask = (padded != 0).unsqueeze(-1).to(bag.dtype)
        words = (self.word(padded) * mask).sum(1) / mask.sum(1).clamp(min=1)
        return self.fc(torch.cat([bag, words], dim=1))


def make_model():
    return TextClassificationModel(30, 8, 4)


def make_optimizers(model):
    sparse_params = [p for n, p in model.named_parameters() if n.startswith(('embedding', 'word'))]
    dense_params = [p for n, p in model.named_parameters() if not n.startswith(('embedding', 'word'))]
    return [torch.optim.SparseAdam(sparse_params, lr=1e-2), torch.optim.Adam(dense_params, lr=1e-2)]


criterion = torch.nn.CrossEntropyLoss()


def collate_batch(batch):
    label_list, text_list, offsets = [], [], [0]
    for _label, _text in batch:
        label_list.append(_label)
        processed_text = torch.tensor(_text, dtype=torch.int64)
        text_list.append(processed_text)
        offsets.append(processed_text.size(0))
    label_list = torch.tensor(label_list, dtype=torch.int64)
    offsets = torch.tensor(offsets[:-1]).cumsum(dim=0)
    padded = nn.utils.rnn.pad_sequence(text_list, batch_first=True, padding_value=0)
    text_list = torch.cat(text_list)
    return label_list, text_list, offsets, padded


def train_step(model, optimizers, label, text, offsets, padded):
    for opt in optimizers:
        opt.zero_grad()
    predicted_label = model(text, offsets, padded)
    loss = criterion(predicted_label, label)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.fc.parameters(), 0.1)
    for opt in optimizers:
        opt.step()
    return loss


def tfidf_attention(text, offsets, vocab_size):
    \"\"\"A document-term count matrix as a sparse tensor: row sums with torch.sparse.sum and a
    softmax over each document's terms with torch.sparse.softmax.\"\"\"
    lengths = torch.diff(torch.cat([offsets, torch.tensor([text.numel()])]))
    doc = torch.repeat_interleave(torch.arange(len(offsets)), lengths)
    counts = torch.sparse_coo_tensor(torch.stack([doc, text]), torch.ones(text.numel(), dtype=torch.float64),
                                     (len(offsets), vocab_size)).coalesce()
    doc_len = torch.sparse.sum(counts, dim=1).to_dense()
    total = torch.sparse.sum(counts)
    weights = torch.sparse.softmax(counts, dim=1)
    return doc_len, total, weights
"""

# ---- 4b. a padded-batch text classifier on nn.TransformerEncoder (inference takes torch's nested path)
TRANSFORMER_CLASSIFIER = """
import math

import torch
from torch import nn


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout=0.1, max_len=64):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(1, max_len, d_model)
        pe[0, :, 0::2] = torch.sin(position * div_term)
        pe[0, :, 1::2] = torch.cos(position * div_term)
        self.register_buffer('pe', pe)

    def forward(self, x):
        x = x + self.pe[:, :x.size(1)]
        return self.dropout(x)


class TransformerClassifier(nn.Module):
    def __init__(self, vocab_size=40, d_model=32, nhead=4, num_layers=2, num_classes=3, pad_idx=0):
        super().__init__()
        self.pad_idx = pad_idx
        self.embedding = nn.Embedding(vocab_size, d_model, padding_idx=pad_idx)
        self.pos_encoder = PositionalEncoding(d_model)
        encoder_layer = nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward=64, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(encoder_layer, num_layers=num_layers)
        self.classifier = nn.Linear(d_model, num_classes)
        self.d_model = d_model

    def forward(self, tokens):
        padding_mask = tokens == self.pad_idx
        x = self.embedding(tokens) * math.sqrt(self.d_model)
        x = self.pos_encoder(x)
        x = self.encoder(x, src_key_padding_mask=padding_mask)
        x = x.mean(dim=1)
        return self.classifier(x)


def make_model():
    return TransformerClassifier()


def make_optimizer(model):
    return torch.optim.Adam(model.parameters(), lr=1e-3)


criterion = nn.CrossEntropyLoss()


def train_step(model, optimizer, tokens, labels):
    model.train()
    optimizer.zero_grad()
    loss = criterion(model(tokens), labels)
    loss.backward()
    optimizer.step()
    return loss


@torch.inference_mode()
def predict(model, tokens):
    model.eval()
    logits = model(tokens)
    return logits, logits.softmax(-1), logits.argmax(-1)
"""

# ---- 9. physics-informed network: derivatives by torch.autograd.grad, L-BFGS ----------------------
PINN = """
import math

import torch
import torch.nn as nn

torch.set_default_dtype(torch.float64)


class PINN(nn.Module):
    def __init__(self, layers=(2, 20, 20, 1)):
        super().__init__()
        self.activation = nn.Tanh()
        self.linears = nn.ModuleList([nn.Linear(layers[i], layers[i + 1]) for i in range(len(layers) - 1)])
        for i in range(len(layers) - 1):
            nn.init.xavier_normal_(self.linears[i].weight.data, gain=1.0)
            nn.init.zeros_(self.linears[i].bias.data)

    def forward(self, x):
        a = x
        for i in range(len(self.linears) - 1):
            a = self.activation(self.linears[i](a))
        return self.linears[-1](a)


def residual(model, x, t, nu=0.01 / math.pi):
    \"\"\"Burgers' equation u_t + u u_x - nu u_xx = 0 at collocation points.\"\"\"
    u = model(torch.cat([x, t], dim=1))
    u_t = torch.autograd.grad(u, t, grad_outputs=torch.ones_like(u), retain_graph=True, create_graph=True)[0]
    u_x = torch.autograd.grad(u, x, grad_outputs=torch.ones_like(u), retain_graph=True, create_graph=True)[0]
    u_xx = torch.autograd.grad(u_x, x, grad_outputs=torch.ones_like(u_x), retain_graph=True, create_graph=True)[0]
    return u_t + u * u_x - nu * u_xx


def make_model():
    return PINN()


def fit(model, x_f, t_f, x_u, t_u, u, max_iter=6):
    x_f = x_f.clone().requires_grad_(True)
    t_f = t_f.clone().requires_grad_(True)
    optimizer = torch.optim.LBFGS(model.parameters(), lr=1.0, max_iter=max_iter, max_eval=None,
                                  tolerance_grad=1e-9, tolerance_change=1e-12, history_size=10,
                                  line_search_fn="strong_wolfe")
    losses = []

    def closure():
        optimizer.zero_grad()
        u_pred = model(torch.cat([x_u, t_u], dim=1))
        f_pred = residual(model, x_f, t_f)
        loss = torch.mean((u - u_pred) ** 2) + torch.mean(f_pred ** 2)
        loss.backward()
        losses.append(loss.detach())
        return loss

    optimizer.step(closure)
    return torch.stack(losses)
"""

# ---- 10. per-sample gradients and a Hessian with torch.func (the PyTorch tutorial) ----------------
PER_SAMPLE = """
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, grad, hessian, vmap


class SimpleCNN(nn.Module):
    def __init__(self):
        super(SimpleCNN, self).__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, 1)
        self.conv2 = nn.Conv2d(4, 8, 3, 1)
        self.fc1 = nn.Linear(32, 16)
        self.fc2 = nn.Linear(16, 10)

    def forward(self, x):
        x = self.conv1(x)
        x = F.relu(x)
        x = self.conv2(x)
        x = F.relu(x)
        x = F.max_pool2d(x, 2)
        x = torch.flatten(x, 1)
        x = self.fc1(x)
        x = F.relu(x)
        x = self.fc2(x)
        output = F.log_softmax(x, dim=1)
        return output


def loss_fn(predictions, targets):
    return F.nll_loss(predictions, targets)


def make_model():
    return SimpleCNN()


def per_sample_grads(model, data, targets):
    params = {k: v.detach() for k, v in model.named_parameters()}
    buffers = {k: v.detach() for k, v in model.named_buffers()}

    def compute_loss(params, buffers, sample, target):
        batch = sample.unsqueeze(0)
        targets = target.unsqueeze(0)
        predictions = functional_call(model, (params, buffers), (batch,))
        loss = loss_fn(predictions, targets)
        return loss

    ft_compute_grad = grad(compute_loss)
    ft_compute_sample_grad = vmap(ft_compute_grad, in_dims=(None, None, 0, 0))
    return ft_compute_sample_grad(params, buffers, data, targets)


def loop_grads(model, data, targets):
    grads = []
    for i in range(data.shape[0]):
        model.zero_grad()
        loss = loss_fn(model(data[i:i + 1]), targets[i:i + 1])
        loss.backward()
        grads.append([p.grad.clone() for p in model.parameters()])
    return [torch.stack(g) for g in zip(*grads)]


def head_hessian(model, data, targets):
    feats = F.relu(model.fc1(torch.flatten(F.max_pool2d(F.relu(model.conv2(F.relu(model.conv1(data)))), 2), 1)))

    def head_loss(w):
        return loss_fn(F.log_softmax(feats.detach() @ w.T + model.fc2.bias.detach(), dim=1), targets)

    return hessian(head_loss)(model.fc2.weight.detach())
"""

# ---- 11. message passing with index_add_ / scatter_reduce (a GNN without a graph library) ---------
MESSAGE_PASSING = """
import torch
import torch.nn as nn
import torch.nn.functional as F


def knn_graph(pos, k):
    dist = torch.cdist(pos, pos)
    dist.fill_diagonal_(float('inf'))
    col = dist.topk(k, dim=1, largest=False).indices.reshape(-1)
    row = torch.arange(pos.size(0)).repeat_interleave(k)
    return torch.stack([row, col])


class EdgeConv(nn.Module):
    \"\"\"DGCNN's EdgeConv: max over neighbours of an MLP on (x_i, x_j - x_i).\"\"\"

    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(2 * in_channels, out_channels), nn.ReLU(), nn.Linear(out_channels, out_channels))

    def forward(self, x, edge_index):
        row, col = edge_index
        msg = self.mlp(torch.cat([x[row], x[col] - x[row]], dim=-1))
        out = torch.full((x.size(0), msg.size(1)), float('-inf'), dtype=x.dtype)
        out = out.scatter_reduce(0, row.unsqueeze(-1).expand_as(msg), msg, reduce='amax', include_self=True)
        return out


class MeanConv(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.lin = nn.Linear(in_channels, out_channels)
        self.root = nn.Linear(in_channels, out_channels, bias=False)

    def forward(self, x, edge_index):
        row, col = edge_index
        agg = torch.zeros_like(x).index_add_(0, row, x[col])
        deg = torch.bincount(row, minlength=x.size(0)).clamp(min=1).to(x.dtype).unsqueeze(-1)
        return self.lin(agg / deg) + self.root(x)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = EdgeConv(3, 16)
        self.conv2 = MeanConv(16, 16)
        self.fc = nn.Linear(16, 4)

    def forward(self, pos, batch, num_graphs):
        edge_index = knn_graph(pos, k=4)
        x = F.relu(self.conv1(pos, edge_index))
        x = F.relu(self.conv2(x, edge_index))
        pooled = torch.zeros(num_graphs, x.size(1), dtype=x.dtype).scatter_add_(0, batch.unsqueeze(-1).expand_as(x), x)
        pooled = pooled / torch.bincount(batch).unsqueeze(-1)
        return F.log_softmax(self.fc(pooled), dim=-1)


def make_model():
    return Net()


def make_optimizer(model):
    return torch.optim.AdamW(model.parameters(), lr=1e-2)


def train_step(model, optimizer, pos, batch, y):
    optimizer.zero_grad()
    loss = F.nll_loss(model(pos, batch, 2), y)
    loss.backward()
    optimizer.step()
    return loss
"""

# ---- 12. NeRF volume rendering with hierarchical sampling (after nerf-pytorch) ---------------------
NERF = """
import torch
import torch.nn as nn
import torch.nn.functional as F

img2mse = lambda x, y : torch.mean((x - y) ** 2)
mse2psnr = lambda x : -10. * torch.log(x) / torch.log(torch.Tensor([10.]))


class Embedder:
    def __init__(self, **kwargs):
        self.kwargs = kwargs
        self.create_embedding_fn()

    def create_embedding_fn(self):
        embed_fns = []
        d = self.kwargs['input_dims']
        out_dim = 0
        if self.kwargs['include_input']:
            embed_fns.append(lambda x : x)
            out_dim += d
        max_freq = self.kwargs['max_freq_log2']
        N_freqs = self.kwargs['num_freqs']
        if self.kwargs['log_sampling']:
            freq_bands = 2.**torch.linspace(0., max_freq, steps=N_freqs)
        else:
            freq_bands = torch.linspace(2.**0., 2.**max_freq, steps=N_freqs)
        for freq in freq_bands:
            for p_fn in self.kwargs['periodic_fns']:
                embed_fns.append(lambda x, p_fn=p_fn, freq=freq : p_fn(x * freq))
                out_dim += d
        self.embed_fns = embed_fns
        self.out_dim = out_dim

    def embed(self, inputs):
        return torch.cat([fn(inputs) for fn in self.embed_fns], -1)


def get_embedder(multires):
    embed_kwargs = {
                'include_input' : True,
                'input_dims' : 3,
                'max_freq_log2' : multires-1,
                'num_freqs' : multires,
                'log_sampling' : True,
                'periodic_fns' : [torch.sin, torch.cos],
    }
    embedder_obj = Embedder(**embed_kwargs)
    embed = lambda x, eo=embedder_obj : eo.embed(x)
    return embed, embedder_obj.out_dim


class NeRF(nn.Module):
    def __init__(self, D=3, W=32, input_ch=3, input_ch_views=3, output_ch=4, skips=[1], use_viewdirs=True):
        super(NeRF, self).__init__()
        self.D = D
        self.W = W
        self.input_ch = input_ch
        self.input_ch_views = input_ch_views
        self.skips = skips
        self.use_viewdirs = use_viewdirs
        self.pts_linears = nn.ModuleList(
            [nn.Linear(input_ch, W)] + [nn.Linear(W, W) if i not in self.skips else nn.Linear(W + input_ch, W) for i in range(D-1)])
        self.views_linears = nn.ModuleList([nn.Linear(input_ch_views + W, W//2)])
        if use_viewdirs:
            self.feature_linear = nn.Linear(W, W)
            self.alpha_linear = nn.Linear(W, 1)
            self.rgb_linear = nn.Linear(W//2, 3)
        else:
            self.output_linear = nn.Linear(W, output_ch)

    def forward(self, x):
        input_pts, input_views = torch.split(x, [self.input_ch, self.input_ch_views], dim=-1)
        h = input_pts
        for i, l in enumerate(self.pts_linears):
            h = self.pts_linears[i](h)
            h = F.relu(h)
            if i in self.skips:
                h = torch.cat([input_pts, h], -1)
        if self.use_viewdirs:
            alpha = self.alpha_linear(h)
            feature = self.feature_linear(h)
            h = torch.cat([feature, input_views], -1)
            for i, l in enumerate(self.views_linears):
                h = self.views_linears[i](h)
                h = F.relu(h)
            rgb = self.rgb_linear(h)
            outputs = torch.cat([rgb, alpha], -1)
        else:
            outputs = self.output_linear(h)
        return outputs


embed_fn, input_ch = get_embedder(4)
embeddirs_fn, input_ch_views = get_embedder(2)


def make_models():
    return (NeRF(input_ch=input_ch, input_ch_views=input_ch_views),
            NeRF(input_ch=input_ch, input_ch_views=input_ch_views))


def run_network(inputs, viewdirs, fn):
    inputs_flat = torch.reshape(inputs, [-1, inputs.shape[-1]])
    embedded = embed_fn(inputs_flat)
    input_dirs = viewdirs[:,None].expand(inputs.shape)
    input_dirs_flat = torch.reshape(input_dirs, [-1, input_dirs.shape[-1]])
    embedded = torch.cat([embedded, embeddirs_fn(input_dirs_flat)], -1)
    outputs_flat = fn(embedded)
    return torch.reshape(outputs_flat, list(inputs.shape[:-1]) + [outputs_flat.shape[-1]])


def raw2outputs(raw, z_vals, rays_d, white_bkgd=False):
    raw2alpha = lambda raw, dists, act_fn=F.relu: 1.-torch.exp(-act_fn(raw)*dists)
    dists = z_vals[...,1:] - z_vals[...,:-1]
    dists = torch.cat([dists, torch.Tensor([1e10]).expand(dists[...,:1].shape)], -1)  # [N_rays, N_samples]
    dists = dists * torch.norm(rays_d[...,None,:], dim=-1)
    rgb = torch.sigmoid(raw[...,:3])  # [N_rays, N_samples, 3]
    alpha = raw2alpha(raw[...,3], dists)  # [N_rays, N_samples]
    weights = alpha * torch.cumprod(torch.cat([torch.ones((alpha.shape[0], 1)), 1.-alpha + 1e-10], -1), -1)[:, :-1]
    rgb_map = torch.sum(weights[...,None] * rgb, -2)  # [N_rays, 3]
    depth_map = torch.sum(weights * z_vals, -1)
    disp_map = 1./torch.max(1e-10 * torch.ones_like(depth_map), depth_map / torch.sum(weights, -1))
    acc_map = torch.sum(weights, -1)
    if white_bkgd:
        rgb_map = rgb_map + (1.-acc_map[...,None])
    return rgb_map, disp_map, acc_map, weights, depth_map


def sample_pdf(bins, weights, N_samples, det=False):
    # Get pdf
    weights = weights + 1e-5 # prevent nans
    pdf = weights / torch.sum(weights, -1, keepdim=True)
    cdf = torch.cumsum(pdf, -1)
    cdf = torch.cat([torch.zeros_like(cdf[...,:1]), cdf], -1)  # (batch, len(bins))
    # Take uniform samples
    if det:
        u = torch.linspace(0., 1., steps=N_samples)
        u = u.expand(list(cdf.shape[:-1]) + [N_samples])
    else:
        u = torch.rand(list(cdf.shape[:-1]) + [N_samples])
    # Invert CDF
    u = u.contiguous()
    inds = torch.searchsorted(cdf, u, right=True)
    below = torch.max(torch.zeros_like(inds-1), inds-1)
    above = torch.min((cdf.shape[-1]-1) * torch.ones_like(inds), inds)
    inds_g = torch.stack([below, above], -1)  # (batch, N_samples, 2)
    matched_shape = [inds_g.shape[0], inds_g.shape[1], cdf.shape[-1]]
    cdf_g = torch.gather(cdf.unsqueeze(1).expand(matched_shape), 2, inds_g)
    bins_g = torch.gather(bins.unsqueeze(1).expand(matched_shape), 2, inds_g)
    denom = (cdf_g[...,1]-cdf_g[...,0])
    denom = torch.where(denom<1e-5, torch.ones_like(denom), denom)
    t = (u-cdf_g[...,0])/denom
    samples = bins_g[...,0] + t * (bins_g[...,1]-bins_g[...,0])
    return samples


def render_rays(rays_o, rays_d, near, far, network_fn, network_fine, N_samples=8, N_importance=8, perturb=0.):
    viewdirs = rays_d / torch.norm(rays_d, dim=-1, keepdim=True)
    N_rays = rays_o.shape[0]
    t_vals = torch.linspace(0., 1., steps=N_samples)
    z_vals = near * (1.-t_vals) + far * (t_vals)
    z_vals = z_vals.expand([N_rays, N_samples])
    pts = rays_o[...,None,:] + rays_d[...,None,:] * z_vals[...,:,None] # [N_rays, N_samples, 3]
    raw = run_network(pts, viewdirs, network_fn)
    rgb_map, disp_map, acc_map, weights, depth_map = raw2outputs(raw, z_vals, rays_d)
    rgb_map_0 = rgb_map
    z_vals_mid = .5 * (z_vals[...,1:] + z_vals[...,:-1])
    z_samples = sample_pdf(z_vals_mid, weights[...,1:-1], N_importance, det=(perturb==0.))
    z_samples = z_samples.detach()
    z_vals, _ = torch.sort(torch.cat([z_vals, z_samples], -1), -1)
    pts = rays_o[...,None,:] + rays_d[...,None,:] * z_vals[...,:,None]
    raw = run_network(pts, viewdirs, network_fine)
    rgb_map, disp_map, acc_map, weights, depth_map = raw2outputs(raw, z_vals, rays_d)
    return rgb_map, rgb_map_0, z_samples, disp_map


def make_optimizer(models):
    grad_vars = list(models[0].parameters()) + list(models[1].parameters())
    return torch.optim.Adam(params=grad_vars, lr=5e-4, betas=(0.9, 0.999))


def train_step(models, optimizer, rays_o, rays_d, target_s):
    rgb, rgb0, z_samples, disp = render_rays(rays_o, rays_d, 2., 6., models[0], models[1])
    optimizer.zero_grad()
    img_loss = img2mse(rgb, target_s)
    loss = img_loss + img2mse(rgb0, target_s)
    psnr = mse2psnr(img_loss)
    loss.backward()
    optimizer.step()
    return loss, psnr, z_samples, disp
"""
