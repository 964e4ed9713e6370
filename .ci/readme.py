"""Write README.md from nbs/index.ipynb without Quarto (which CI machines lack).

nbdev_readme needs Quarto; this renders the same page: markdown cells as they are, code cells
that are not hidden as python blocks, and the text output of `#| echo: false` cells (a command's real
output, its code hidden) as text blocks. `python .ci/readme.py --check` exits 1 if README.md is stale;
`python .ci/readme.py --command N` prints the README's Nth command (the one-line sh blocks under "Two commands"), as CI runs it."""
import json, re, sys
from pathlib import Path

root = Path(__file__).resolve().parent.parent
nb = json.loads((root/'nbs'/'index.ipynb').read_text())
parts = []
for c in nb['cells']:
    src = ''.join(c['source']).strip()
    if not src: continue
    if c['cell_type'] == 'markdown':
        lines = src.split('\n')
        if lines[0].startswith('# ') and len(lines) > 1 and lines[1].startswith('> '):
            src = '\n'.join([lines[0], '', lines[1]] + lines[2:])   # title and subtitle
        parts.append(src)
    elif any(l.replace(' ', '') == '#|echo:false' for l in src.split('\n')):
        out = ''.join(''.join(o.get('text', '')) for o in c.get('outputs', []) if o.get('output_type') == 'stream' and o.get('name') == 'stdout')
        if out.strip(): parts.append('```text\n' + out.rstrip() + '\n```')
    elif not any(l.strip().startswith('#|') and ('hide' in l or 'export' in l) for l in src.split('\n')):
        parts.append('```python\n' + src + '\n```')
text = '\n\n'.join(parts) + '\n'
readme = root/'README.md'
if '--command' in sys.argv:
    section = text.split('## Two commands', 1)[1].split('\n## ', 1)[0]
    blocks = [b.strip() for b in re.findall(r'```sh\n(.*?)```', section, re.S)]
    n = int(sys.argv[sys.argv.index('--command') + 1])
    if not 1 <= n <= len(blocks) or '\n' in blocks[n - 1]: sys.exit(f"the README's Two commands section has {len(blocks)} one-line sh blocks; no command {n}")
    print(blocks[n - 1])
elif '--check' in sys.argv:
    if not readme.exists() or readme.read_text() != text:
        sys.exit('README.md is out of date with nbs/index.ipynb: run python .ci/readme.py')
else:
    readme.write_text(text)
