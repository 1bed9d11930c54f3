#!/usr/bin/env bash
# How the commands meet bad input, faults and concurrent runs, on throw-away inputs made from
# the real files: each probe prints its case, the command's exit code and the last line of
# stderr (what a user sees). Usage (from an installed checkout):
# bash benchmarks/probes/probe_bad_input.sh
# Needs ../shared/data (or KERNELRANK_DATA) and Link Grammar; takes a few minutes.
cd "$(dirname "$0")/../.." || exit 1
export KERNELRANK_DATA="${KERNELRANK_DATA:-$(cd .. && pwd)/shared/data}" MPLBACKEND=Agg
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
D=$KERNELRANK_DATA
show() { local name="$1"; shift; "$@" >$T/out 2>$T/err; local c=$?; echo "## $name"; echo "exit $c: $(grep -v '^\s*$' $T/err | tail -1)"; }

# case 1
python -m ppi train --corpus LLL --model $T/M --quiet >/dev/null 2>&1
python -m ppi train --corpus HPRD50 --model $T/M2 --quiet >/dev/null 2>&1
cp $T/M2/weights.npz $T/M/weights.npz
show "1 mixed model files" python -m ppi predict --input $D/ppi/LLL-learning-format.xml.gz --model $T/M
python -m ppi train --corpus LLL --model $T/M --quiet >/dev/null 2>&1
python - <<PY
import json; p="$T/M/model.json"; m=json.load(open(p)); m["labels"]=m["labels"][:-1]; json.dump(m,open(p,"w"))
PY
show "1 labels shortened by hand" python -m ppi predict --input $D/ppi/LLL-learning-format.xml.gz --model $T/M
python -m ppi train --corpus LLL --model $T/M --quiet >/dev/null 2>&1

# case 2: two builds on one output
python -m parse_ranking build --treebank $D/craft/conllu --output $T/b.jsonl --max-sentences 40 --quiet --jobs 1 >$T/b1.out 2>$T/b1.err &
B1=$!; sleep 4
show "2 second parse_ranking build on the same output" python -m parse_ranking build --treebank $D/craft/conllu --output $T/b.jsonl --max-sentences 40 --quiet --jobs 1
wait $B1; echo "first build exit $?"
# case 3: two extracts on one output
python -m ppi extract --model $T/M --input $D/ppi/LLL-learning-format.xml.gz --format learning-xml --output $T/x.jsonl --jobs 0 --chunk-size 5 --quiet >$T/x1.out 2>$T/x1.err &
X1=$!; sleep 3
show "3 second ppi extract on the same output" python -m ppi extract --model $T/M --input $D/ppi/LLL-learning-format.xml.gz --format learning-xml --output $T/x.jsonl --jobs 0 --quiet
wait $X1; echo "first extract exit $?; stray: $(ls $T | grep -c parts)"

# case 4
python - <<PY
import gzip
s=gzip.open("$D/ppi/LLL-learning-format.xml.gz","rt").read()
i=s.index('text="',s.index("<entity"))+6; j=s.index('"',i)
open("$T/textoff.xml","w").write(s[:i]+"X"+s[i+1:j]+s[j:])
PY
show "4 entity text vs charOffset" python -m ppi predict --input $T/textoff.xml --model $T/M
zcat $D/text/PMtask_Relations_TrainingSet.pubtator.gz | awk 'BEGIN{RS="";ORS="\n\n"} NR<=2' > $T/one.pubtator
python - <<PY
s=open("$T/one.pubtator").read().strip().split("\n\n")
a=s[0]; pm=a.split("|")[0]; b=s[1]; pb=b.split("|")[0]
open("$T/dup.pubtator","w").write(a+"\n\n"+b.replace(pb+"|",pm+"|").replace(pb+"\t",pm+"\t")+"\n\n")
PY
show "4 PubTator PMID twice" python -m ppi extract --model $T/M --input $T/dup.pubtator --format pubtator --output $T/dup.jsonl --jobs 0 --quiet

# case 5, 8
show "5 RLS on X*1e160 (primal)" python -c "
import numpy as np; from learners import RLS
r=np.random.default_rng(0); X=r.normal(size=(50,5))*1e160; y=r.normal(size=50)
RLS().fit(X,y)"
show "5 RLS dual on X*1e160" python -c "
import numpy as np; from learners import RLS
r=np.random.default_rng(0); X=r.normal(size=(50,5))*1e160; y=r.normal(size=50)
RLS(solver='dual').fit(X,y)"
show "8 NystroemMap on 0 features" python -c "
import numpy as np; from learners.nystroem import NystroemMap
NystroemMap(n_basis=2).fit(np.zeros((10,0)))"
show "8 complex X" python -c "
import numpy as np; from learners.nystroem import NystroemMap
NystroemMap(n_basis=2).fit(np.ones((10,3))*(1+1j))"

# case 6
show "6 ppi predict --input nonexistent" python -m ppi predict --input $T/nope.xml --model $T/M
show "6 ppi train --input directory" python -m ppi train --input $T --model $T/M3
head -c 2000 /bin/ls > $T/bin.fa
show "6 binary file as homology --positives" python -m homology train --positives $T/bin.fa --negatives $T/bin.fa --model $T/h.npz
mkdir -p $T/letor/Fold1; : > $T/letor/Fold1/train.txt
show "6 truncated weights.npz" bash -c "cp -r $T/M $T/Mt && head -c 300 $T/M/weights.npz > $T/Mt/weights.npz && python -m ppi predict --input $D/ppi/LLL-learning-format.xml.gz --model $T/Mt"
show "6 model.json a list" bash -c "cp -r $T/M $T/Ml && echo '[1,2]' > $T/Ml/model.json && python -m ppi predict --input $D/ppi/LLL-learning-format.xml.gz --model $T/Ml"
python -c "import numpy as np; np.savez('$T/obj.npz', w0=np.array([{'a':1}],dtype=object))"
show "6 object-array npz as homology model" python -m homology predict --model $T/obj.npz --input $T/bin.fa --output $T/h.tsv
mkdir -p $T/xp.jsonl.parts; echo '{"inp' > $T/xp.jsonl.parts/run.json
show "6 corrupt .parts/run.json" python -m ppi extract --model $T/M --input $D/ppi/LLL-learning-format.xml.gz --format learning-xml --output $T/xp.jsonl --jobs 0 --quiet
s=$(date +%s.%N)
show "6 --scheduler tcp://127.0.0.1:1" python -m ppi extract --model $T/M --input $D/ppi/LLL-learning-format.xml.gz --format learning-xml --output $T/xs.jsonl --scheduler tcp://127.0.0.1:1 --quiet
echo "  took $(python -c "print(round($(date +%s.%N)-$s,1))") s"
show "6 malformed scheduler" python -m ppi extract --model $T/M --input $D/ppi/LLL-learning-format.xml.gz --format learning-xml --output $T/xs2.jsonl --scheduler foo --quiet
show "6 --jobs -1" python -m ppi extract --model $T/M --input $D/ppi/LLL-learning-format.xml.gz --format learning-xml --output $T/xs3.jsonl --jobs -1 --quiet
show "6 --output a directory" python -m ppi extract --model $T/M --input $D/ppi/LLL-learning-format.xml.gz --format learning-xml --output $T --quiet
# case 7
show "7 build keeps no sentence" python -m parse_ranking build --treebank $D/craft/conllu --output $T/none.jsonl --min-length 200 --max-length 300 --quiet
# case 9
printf '# sent_id = s1\n1\tA\ta\tX\tX\t_\t2\tdep\t_\t_\n2\tB\tb\tX\tX\t_\t1\tdep\t_\t_\n\n' > $T/cyc.conllu
show "9 CoNLL-U cycle" python -c "from corpora.conllu import read_conllu; read_conllu('$T/cyc.conllu')"
umask 022; python -c "from kernelrank.atomic import write_text; write_text('$T/um.txt','x')"; echo "## 9 umask 022 → mode $(stat -c %a $T/um.txt)"
python - <<PY
import gzip,re
s=gzip.open("$D/ppi/LLL-learning-format.xml.gz","rt").read()
m=re.search(r'<pair e1="([^"]+)" e2="([^"]+)" id="([^"]+)"',s)
open("$T/selfpair.xml","w").write(s.replace(m.group(0),'<pair e1="%s" e2="%s" id="%s"'%(m.group(1),m.group(1),m.group(3)),1))
pairs=re.findall(r'<pair e1="[^"]+" e2="[^"]+" id="([^"]+)"',s)
open("$T/duppair.xml","w").write(s.replace('id="%s"'%pairs[1],'id="%s"'%pairs[0],1))
sents=re.findall(r'<sentence id="([^"]+)"',s)
open("$T/dupsent.xml","w").write(s.replace('<sentence id="%s"'%sents[1],'<sentence id="%s"'%sents[0],1))
ents=re.findall(r'<entity [^>]*id="([^"]+)"',s)
open("$T/dupent.xml","w").write(s.replace('id="%s"'%ents[1],'id="%s"'%ents[0],1))
PY
show "4 self pair" python -m ppi predict --input $T/selfpair.xml --model $T/M
show "4 duplicate pair id" python -m ppi predict --input $T/duppair.xml --model $T/M
show "4 duplicate sentence id" python -m ppi predict --input $T/dupsent.xml --model $T/M
show "4 duplicate entity id" python -m ppi predict --input $T/dupent.xml --model $T/M
