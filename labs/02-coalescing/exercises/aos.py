"""Exercice 02-aos · 练习 02-aos — out = p après un pas de dérive · 漂移一步后的粒子

FR. Les particules arrivent en tableau de structures : p[i] = (x, y, z, vx, vy, vz, masse, charge),
8 float32, 32 octets par particule, et out a la même forme. Tel quel, ce fichier est juste :
chaque thread lit l'enregistrement de sa particule, avance la position de vx·dt, vy·dt, vz·dt et
écrit l'enregistrement entier dans out. Mais chaque lecture et chaque écriture d'un champ est un
accès au pas de 8 flottants : 32 secteurs par requête. Gardez la disposition des données (elle
vous est imposée) et rendez chaque accès global coalescé.

中文。粒子以结构体数组的形式传入：p[i] = (x, y, z, vx, vy, vz, mass, charge)，8 个 float32，
每个粒子 32 字节，out 的形状相同。这个文件原样是对的：每个线程读取自己粒子的记录，把位置前进
vx·dt、vy·dt、vz·dt，再把整条记录写进 out。但每个字段的每次读写都是步长为 8 个 float 的访问：
每次请求 32 个 sector。保持数据布局不变（它是给定的），让每一次全局访问都合并。

make exercise-02-aos   (sans GPU, le simulateur vérifie la sortie et les secteurs · 没有 GPU 时，模拟器检查输出与 sector)
"""

from labkit.gpu import cuda

FIELDS = 8      # x, y, z, vx, vy, vz, masse · mass, charge
THREADS = 256


# ---- your code: from here ----------------------------------------------------------------------
@cuda.jit
def drift_records(p, dt, out):
    i = cuda.grid(1)
    if i < p.shape[0]:
        out[i, 0] = p[i, 0] + p[i, 3] * dt
        out[i, 1] = p[i, 1] + p[i, 4] * dt
        out[i, 2] = p[i, 2] + p[i, 5] * dt
        for f in range(3, FIELDS):
            out[i, f] = p[i, f]


def drift(p, dt, out):
    blocks = (p.shape[0] + THREADS - 1) // THREADS
    drift_records[blocks, THREADS](p, dt, out)
# ---- to here -----------------------------------------------------------------------------------
