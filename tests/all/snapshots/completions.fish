# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_tunespec_global_optspecs
    string join /n color= v/verbose q/quiet iree= h/help V/version
end

function __fish_tunespec_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_tunespec_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_tunespec_using_subcommand
    set -l cmd (__fish_tunespec_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c tunespec -n "__fish_tunespec_needs_command" -l color -d 'When to colour reports: auto (on a terminal, unless NO_COLOR or CLICOLOR=0; CLICOLOR_FORCE=1 forces it), always, never' -r -f -a "auto/t''
always/t''
never/t''"
complete -c tunespec -n "__fish_tunespec_needs_command" -l iree -d 'IREE/'s compiler library (libIREECompiler.so, a venv or a directory holding it)' -r -F
complete -c tunespec -n "__fish_tunespec_needs_command" -s v -l verbose -d 'Print what tunespec does and how long each phase takes, to stderr (-vv: more detail; TUNESPEC_LOG sets the filter instead)'
complete -c tunespec -n "__fish_tunespec_needs_command" -s q -l quiet -d 'Print only problems and outputs: no progress bars, no summaries'
complete -c tunespec -n "__fish_tunespec_needs_command" -s h -l help -d 'Print help (see more with /'--help/')'
complete -c tunespec -n "__fish_tunespec_needs_command" -s V -l version -d 'Print version'
complete -c tunespec -n "__fish_tunespec_needs_command" -f -a "verify" -d 'Verify tuning specs (files, directories, or the embedded registry)'
complete -c tunespec -n "__fish_tunespec_needs_command" -f -a "link" -d 'Link default and user specs into one library (first match wins)'
complete -c tunespec -n "__fish_tunespec_needs_command" -f -a "attach" -d 'Attach a linked library to a payload (iree_codegen.tuning_spec_mlirbc)'
complete -c tunespec -n "__fish_tunespec_needs_command" -f -a "extract" -d 'Print the library attached to a payload'
complete -c tunespec -n "__fish_tunespec_needs_command" -f -a "apply" -d 'Materialize configs: run @__kernel_config on each function of a payload'
complete -c tunespec -n "__fish_tunespec_needs_command" -f -a "explain" -d 'Show what configured each candidate op of a payload, and from which spec line'
complete -c tunespec -n "__fish_tunespec_needs_command" -f -a "coverage" -d 'List matchers that never fire across a corpus of payloads'
complete -c tunespec -n "__fish_tunespec_needs_command" -f -a "resolve" -d 'Resolve a target: its fallback chain and the ordered specs, with where each comes from'
complete -c tunespec -n "__fish_tunespec_needs_command" -f -a "export" -d 'Export the embedded specs for a compiler build (C header and source)'
complete -c tunespec -n "__fish_tunespec_needs_command" -f -a "targets" -d 'List the embedded registry/'s targets and specs'
complete -c tunespec -n "__fish_tunespec_needs_command" -f -a "show" -d 'Print a target/'s embedded specs as MLIR text'
complete -c tunespec -n "__fish_tunespec_needs_command" -f -a "cache" -d 'The cache of linked libraries: stats, clean, path'
complete -c tunespec -n "__fish_tunespec_needs_command" -f -a "doctor" -d 'What tunespec found on this machine (IREE/'s compiler, iree-opt, mlir-opt) and what works without it'
complete -c tunespec -n "__fish_tunespec_needs_command" -f -a "import-iree" -d 'Write IREE/'s built-in default tuning specs (from an installed compiler) as a spec library'
complete -c tunespec -n "__fish_tunespec_needs_command" -f -a "import-tuner" -d 'Import the SHARK tuner/'s measured winners (tuner run directories) as a spec library'
complete -c tunespec -n "__fish_tunespec_needs_command" -f -a "check" -d 'Re-check every matcher of specs and spec libraries against the installed IREE (--fix migrates old syntax)'
complete -c tunespec -n "__fish_tunespec_needs_command" -f -a "bench" -d 'Time the library/'s configs against IREE/'s own on a device (IREE/'s runtime), and write the winners as measured entries'
complete -c tunespec -n "__fish_tunespec_needs_command" -f -a "time" -d 'Time a bench plan (`bench --plan`) on a device with IREE/'s runtime alone (no compiler): the plan/'s results, resumable, in shards'
complete -c tunespec -n "__fish_tunespec_needs_command" -f -a "decide" -d 'Decide a timed bench plan: its verdicts and, with --write, its measured entries'
complete -c tunespec -n "__fish_tunespec_needs_command" -f -a "tune" -d 'Search configs faster than IREE/'s own for a model/'s dispatches on a device, and write the winners as a measured library'
complete -c tunespec -n "__fish_tunespec_needs_command" -f -a "store" -d 'The shared store of measured entries (Redis, a directory): push, pull, ls, purge'
complete -c tunespec -n "__fish_tunespec_needs_command" -f -a "completions" -d 'Print a shell completion script (bash, zsh, fish, powershell, elvish)'
complete -c tunespec -n "__fish_tunespec_needs_command" -f -a "man" -d 'Print the manual page (roff), of tunespec or of one command'
complete -c tunespec -n "__fish_tunespec_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c tunespec -n "__fish_tunespec_using_subcommand verify" -l format -d 'How findings are printed (on stdout)' -r -f -a "human/t'Reports with a snippet of the source'
json/t'One JSON object per diagnostic per line (docs/schema/diagnostic.schema.json)'
short/t'One line per diagnostic: `file:line:col: severity[code]: message`'
github/t'GitHub Actions workflow commands (`::error file=F,line=L,col=C,title=CODE::MESSAGE`)'
sarif/t'One SARIF 2.1.0 log (GitHub code scanning); rule ids are tunespec/'s codes'"
complete -c tunespec -n "__fish_tunespec_using_subcommand verify" -s j -l jobs -d 'Worker threads (default: available cores)' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand verify" -l iree-opt -d 'iree-opt to check IREE attributes with (default: $TUNESPEC_IREE_OPT, then $TUNESPEC_IREE_VENV/bin/iree-opt, then iree-opt on PATH)' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand verify" -l backend -d 'The IREE backend the specs are for: it decides which ops reach the matchers (GPU backends turn named linalg ops into `linalg.generic` before the spec runs; llvm-cpu keeps them). Default: the GPU rule' -r -f -a "rocm/t''
hip/t''
cuda/t''
vulkan-spirv/t''
llvm-cpu/t''"
complete -c tunespec -n "__fish_tunespec_using_subcommand verify" -s t -l target -d 'The target the specs are for (a target or alias of the registry or of a spec library): the backend its chain names (`backend` in registry.toml) decides, as --backend does' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand verify" -l color -d 'When to colour reports: auto (on a terminal, unless NO_COLOR or CLICOLOR=0; CLICOLOR_FORCE=1 forces it), always, never' -r -f -a "auto/t''
always/t''
never/t''"
complete -c tunespec -n "__fish_tunespec_using_subcommand verify" -l iree -d 'IREE/'s compiler library (libIREECompiler.so, a venv or a directory holding it)' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand verify" -l deny-warnings -d 'Treat warnings (e.g. payload-rewriting ops) as errors'
complete -c tunespec -n "__fish_tunespec_using_subcommand verify" -l no-iree-check -d 'Do not check IREE attributes (#iree_codegen.*, #iree_gpu.*, ...) with iree-opt'
complete -c tunespec -n "__fish_tunespec_using_subcommand verify" -s v -l verbose -d 'Print what tunespec does and how long each phase takes, to stderr (-vv: more detail; TUNESPEC_LOG sets the filter instead)'
complete -c tunespec -n "__fish_tunespec_using_subcommand verify" -s q -l quiet -d 'Print only problems and outputs: no progress bars, no summaries'
complete -c tunespec -n "__fish_tunespec_using_subcommand verify" -s h -l help -d 'Print help (see more with /'--help/')'
complete -c tunespec -n "__fish_tunespec_using_subcommand link" -s t -l target -d 'Target (architecture, SKU or alias) whose default specs are linked after the user/'s' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand link" -s s -l spec -d 'User spec file or directory, `-` for stdin (repeatable; highest priority first)' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand link" -l measured-on -d 'Where a library holds measurements of one op on several devices, take the one measured on DEVICE (words of its record: `local-task`, `H100`, `IREE 3.13.0`; default: the first listed)' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand link" -l store -d 'A shared store whose best entries for the target are linked below the user/'s own specs (read-only; redis://, file://, s3://, gs://, azblob://; docs/store.md)' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand link" -s o -l output -d 'Output file, or `-` for stdout (written atomically)' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand link" -l emit -d 'Output form' -r -f -a "mlir/t'MLIR text'
mlirbc/t'MLIR bytecode (emit version 6; 4 when matcher bodies hold payload ops)'"
complete -c tunespec -n "__fish_tunespec_using_subcommand link" -s j -l jobs -d 'Threads that parse and check the inputs, and most IREE workers that check the result (default: one per core for inputs of 1 MiB or more; the output is the same for any number)' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand link" -l format -d 'How diagnostics are printed (on stderr; stdout may carry the library)' -r -f -a "human/t'Reports with a snippet of the source'
json/t'One JSON object per diagnostic per line (docs/schema/diagnostic.schema.json)'
short/t'One line per diagnostic: `file:line:col: severity[code]: message`'
github/t'GitHub Actions workflow commands (`::error file=F,line=L,col=C,title=CODE::MESSAGE`)'
sarif/t'One SARIF 2.1.0 log (GitHub code scanning); rule ids are tunespec/'s codes'"
complete -c tunespec -n "__fish_tunespec_using_subcommand link" -l color -d 'When to colour reports: auto (on a terminal, unless NO_COLOR or CLICOLOR=0; CLICOLOR_FORCE=1 forces it), always, never' -r -f -a "auto/t''
always/t''
never/t''"
complete -c tunespec -n "__fish_tunespec_using_subcommand link" -l iree -d 'IREE/'s compiler library (libIREECompiler.so, a venv or a directory holding it)' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand link" -l no-default -d 'Link only the user specs'
complete -c tunespec -n "__fish_tunespec_using_subcommand link" -l derived -d 'Also link tunespec/'s derived default specs (derived by rule, never measured; default: off, or `derived` in tunespec.toml / the user config, or TUNESPEC_DERIVED)'
complete -c tunespec -n "__fish_tunespec_using_subcommand link" -l no-derived -d 'Link only measured entries and the user/'s own specs, whatever configs and TUNESPEC_DERIVED say'
complete -c tunespec -n "__fish_tunespec_using_subcommand link" -l dedupe -d 'Drop matchers that can never fire: an earlier matcher matches every op they match (by matcher key, or structurally identical), overridden defaults included'
complete -c tunespec -n "__fish_tunespec_using_subcommand link" -l deny-warnings -d 'Treat warnings (e.g. shadowed matchers) as errors: report them and write nothing'
complete -c tunespec -n "__fish_tunespec_using_subcommand link" -l no-iree-check -d 'Do not check the library with IREE/'s compiler when one is found (the check: IREE parses and verifies the text written; `--emit mlirbc` is IREE/'s own bytecode)'
complete -c tunespec -n "__fish_tunespec_using_subcommand link" -s v -l verbose -d 'Print what tunespec does and how long each phase takes, to stderr (-vv: more detail; TUNESPEC_LOG sets the filter instead)'
complete -c tunespec -n "__fish_tunespec_using_subcommand link" -s q -l quiet -d 'Print only problems and outputs: no progress bars, no summaries'
complete -c tunespec -n "__fish_tunespec_using_subcommand link" -s h -l help -d 'Print help (see more with /'--help/')'
complete -c tunespec -n "__fish_tunespec_using_subcommand attach" -s t -l target -d 'Target (architecture, SKU or alias) whose default specs are linked after the user/'s' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand attach" -s s -l spec -d 'User spec file or directory, `-` for stdin (repeatable; highest priority first)' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand attach" -l measured-on -d 'Where a library holds measurements of one op on several devices, take the one measured on DEVICE (words of its record: `local-task`, `H100`, `IREE 3.13.0`; default: the first listed)' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand attach" -l store -d 'A shared store whose best entries for the target are linked below the user/'s own specs (read-only; redis://, file://, s3://, gs://, azblob://; docs/store.md)' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand attach" -s o -l output -d 'Output file, or `-` for stdout (written atomically)' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand attach" -l attr -d 'Attribute that carries the library' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand attach" -l blob -d 'How the bytes are stored' -r -f -a "dense/t'`dense<"0x..."> : vector<N x i8>` (IREE/'s default)'
resource/t'`dense_resource<...>` with the bytes in the file/'s resource section'"
complete -c tunespec -n "__fish_tunespec_using_subcommand attach" -l format -d 'How diagnostics are printed (on stderr; stdout may carry the payload)' -r -f -a "human/t'Reports with a snippet of the source'
json/t'One JSON object per diagnostic per line (docs/schema/diagnostic.schema.json)'
short/t'One line per diagnostic: `file:line:col: severity[code]: message`'
github/t'GitHub Actions workflow commands (`::error file=F,line=L,col=C,title=CODE::MESSAGE`)'
sarif/t'One SARIF 2.1.0 log (GitHub code scanning); rule ids are tunespec/'s codes'"
complete -c tunespec -n "__fish_tunespec_using_subcommand attach" -l color -d 'When to colour reports: auto (on a terminal, unless NO_COLOR or CLICOLOR=0; CLICOLOR_FORCE=1 forces it), always, never' -r -f -a "auto/t''
always/t''
never/t''"
complete -c tunespec -n "__fish_tunespec_using_subcommand attach" -l iree -d 'IREE/'s compiler library (libIREECompiler.so, a venv or a directory holding it)' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand attach" -l no-default -d 'Link only the user specs'
complete -c tunespec -n "__fish_tunespec_using_subcommand attach" -l derived -d 'Also link tunespec/'s derived default specs (derived by rule, never measured; default: off, or `derived` in tunespec.toml / the user config, or TUNESPEC_DERIVED)'
complete -c tunespec -n "__fish_tunespec_using_subcommand attach" -l no-derived -d 'Link only measured entries and the user/'s own specs, whatever configs and TUNESPEC_DERIVED say'
complete -c tunespec -n "__fish_tunespec_using_subcommand attach" -l keep-all -d 'Attach every pair of the library (default: a library of 64 pairs or more is cut down to the pairs that fire on this payload/'s dispatches, with a note of what was left out)'
complete -c tunespec -n "__fish_tunespec_using_subcommand attach" -s v -l verbose -d 'Print what tunespec does and how long each phase takes, to stderr (-vv: more detail; TUNESPEC_LOG sets the filter instead)'
complete -c tunespec -n "__fish_tunespec_using_subcommand attach" -s q -l quiet -d 'Print only problems and outputs: no progress bars, no summaries'
complete -c tunespec -n "__fish_tunespec_using_subcommand attach" -s h -l help -d 'Print help (see more with /'--help/')'
complete -c tunespec -n "__fish_tunespec_using_subcommand extract" -s o -l output -d 'Output file, or `-` for stdout (written atomically)' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand extract" -l emit -d 'Output form' -r -f -a "mlir/t'MLIR text'
mlirbc/t'MLIR bytecode (emit version 6; 4 when matcher bodies hold payload ops)'"
complete -c tunespec -n "__fish_tunespec_using_subcommand extract" -l attr -d 'Attribute that carries the library' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand extract" -l color -d 'When to colour reports: auto (on a terminal, unless NO_COLOR or CLICOLOR=0; CLICOLOR_FORCE=1 forces it), always, never' -r -f -a "auto/t''
always/t''
never/t''"
complete -c tunespec -n "__fish_tunespec_using_subcommand extract" -l iree -d 'IREE/'s compiler library (libIREECompiler.so, a venv or a directory holding it)' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand extract" -s v -l verbose -d 'Print what tunespec does and how long each phase takes, to stderr (-vv: more detail; TUNESPEC_LOG sets the filter instead)'
complete -c tunespec -n "__fish_tunespec_using_subcommand extract" -s q -l quiet -d 'Print only problems and outputs: no progress bars, no summaries'
complete -c tunespec -n "__fish_tunespec_using_subcommand extract" -s h -l help -d 'Print help (see more with /'--help/')'
complete -c tunespec -n "__fish_tunespec_using_subcommand apply" -s t -l target -d 'Target (architecture, SKU or alias) whose default specs are linked after the user/'s' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand apply" -s s -l spec -d 'User spec file or directory, `-` for stdin (repeatable; highest priority first)' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand apply" -l measured-on -d 'Where a library holds measurements of one op on several devices, take the one measured on DEVICE (words of its record: `local-task`, `H100`, `IREE 3.13.0`; default: the first listed)' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand apply" -s o -l output -d 'Output file, or `-` for stdout (written atomically)' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand apply" -l attr -d 'Attribute that carries the library' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand apply" -l format -d 'How diagnostics and the explanation are printed (on stderr; stdout may carry the payload): human, json, short (a line per op), github (workflow commands), sarif (one log)' -r -f -a "human/t'For people: tables and text; diagnostics with a snippet of the source'
json/t'One JSON document (schemas in docs/schema/); diagnostics and errors are JSON lines on stderr'
short/t'One line per row (greppable) and per diagnostic (`file:line:col: severity[code]: message`)'
github/t'The human report; diagnostics as GitHub Actions workflow commands'
sarif/t'One SARIF 2.1.0 log of the command/'s diagnostics (results empty when there are none)'"
complete -c tunespec -n "__fish_tunespec_using_subcommand apply" -l engine -d 'How the library runs: natively when it can (auto), or always in MLIR/'s interpreter' -r -f -a "auto/t'The native matcher when the whole library is of its form, else the interpreter'
interpreter/t'Always MLIR/'s transform interpreter'
native/t'The native matcher; an error when the library is not of its form'"
complete -c tunespec -n "__fish_tunespec_using_subcommand apply" -l dispatches -d 'Who forms the dispatches matched: IREE for models and tunespec/'s prediction for linalg IR (auto), always IREE (exact on every backend), always the prediction' -r -f -a "auto/t'IREE for payloads only IREE reads (models); tunespec/'s prediction for linalg IR'
iree/t'Always IREE/'s own front end and dispatch formation (exact for every backend; needs IREE and --target)'
predict/t'Always tunespec/'s prediction (MLIR 22, named ops generalized as IREE/'s GPU backends do)'"
complete -c tunespec -n "__fish_tunespec_using_subcommand apply" -l color -d 'When to colour reports: auto (on a terminal, unless NO_COLOR or CLICOLOR=0; CLICOLOR_FORCE=1 forces it), always, never' -r -f -a "auto/t''
always/t''
never/t''"
complete -c tunespec -n "__fish_tunespec_using_subcommand apply" -l iree -d 'IREE/'s compiler library (libIREECompiler.so, a venv or a directory holding it)' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand apply" -l no-default -d 'Link only the user specs'
complete -c tunespec -n "__fish_tunespec_using_subcommand apply" -l derived -d 'Also link tunespec/'s derived default specs (derived by rule, never measured; default: off, or `derived` in tunespec.toml / the user config, or TUNESPEC_DERIVED)'
complete -c tunespec -n "__fish_tunespec_using_subcommand apply" -l no-derived -d 'Link only measured entries and the user/'s own specs, whatever configs and TUNESPEC_DERIVED say'
complete -c tunespec -n "__fish_tunespec_using_subcommand apply" -l keep-attr -d 'Keep the library attribute on the payload'
complete -c tunespec -n "__fish_tunespec_using_subcommand apply" -l explain -d 'Also print (to stderr) what configured each candidate op'
complete -c tunespec -n "__fish_tunespec_using_subcommand apply" -l as-dispatch -d 'Materialize on the payload as iree-compile/'s config materialization sees it (named linalg ops generalized, as IREE/'s dispatch formation does for GPU targets; kept named for a target whose backend is llvm-cpu) and write that: tunespec/'s prediction of the configs a real compile puts on each dispatch'
complete -c tunespec -n "__fish_tunespec_using_subcommand apply" -s v -l verbose -d 'Print what tunespec does and how long each phase takes, to stderr (-vv: more detail; TUNESPEC_LOG sets the filter instead)'
complete -c tunespec -n "__fish_tunespec_using_subcommand apply" -s q -l quiet -d 'Print only problems and outputs: no progress bars, no summaries'
complete -c tunespec -n "__fish_tunespec_using_subcommand apply" -s h -l help -d 'Print help (see more with /'--help/')'
complete -c tunespec -n "__fish_tunespec_using_subcommand explain" -s t -l target -d 'Target (architecture, SKU or alias) whose default specs are linked after the user/'s' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand explain" -s s -l spec -d 'User spec file or directory, `-` for stdin (repeatable; highest priority first)' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand explain" -l measured-on -d 'Where a library holds measurements of one op on several devices, take the one measured on DEVICE (words of its record: `local-task`, `H100`, `IREE 3.13.0`; default: the first listed)' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand explain" -l store -d 'A shared store whose best entries for the target are linked below the user/'s own specs (read-only; redis://, file://, s3://, gs://, azblob://; docs/store.md)' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand explain" -l attr -d 'Attribute that carries the library' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand explain" -l format -d 'Output format: a table (human; github, with a notice per unmatched op), one line per candidate op (short), one JSON document (json), or a SARIF log with a note per unmatched op (sarif)' -r -f -a "human/t'For people: tables and text; diagnostics with a snippet of the source'
json/t'One JSON document (schemas in docs/schema/); diagnostics and errors are JSON lines on stderr'
short/t'One line per row (greppable) and per diagnostic (`file:line:col: severity[code]: message`)'
github/t'The human report; diagnostics as GitHub Actions workflow commands'
sarif/t'One SARIF 2.1.0 log of the command/'s diagnostics (results empty when there are none)'"
complete -c tunespec -n "__fish_tunespec_using_subcommand explain" -l engine -d 'How the library runs: natively when it can (auto), or always in MLIR/'s interpreter' -r -f -a "auto/t'The native matcher when the whole library is of its form, else the interpreter'
interpreter/t'Always MLIR/'s transform interpreter'
native/t'The native matcher; an error when the library is not of its form'"
complete -c tunespec -n "__fish_tunespec_using_subcommand explain" -l view -d 'Which IR to match: as iree-compile sees it at dispatch level (marking ops where that differs from matching the op as written), or as written' -r -f -a "dispatch/t'The payload as iree-compile/'s config materialization sees it: named ops generalized as IREE/'s dispatch formation does'
written/t'The payload as written (what `apply` materializes, like IREE/'s materialize passes on that IR)'"
complete -c tunespec -n "__fish_tunespec_using_subcommand explain" -l dispatches -d 'Who forms the dispatches matched: IREE for models and tunespec/'s prediction for linalg IR (auto), always IREE (exact on every backend), always the prediction' -r -f -a "auto/t'IREE for payloads only IREE reads (models); tunespec/'s prediction for linalg IR'
iree/t'Always IREE/'s own front end and dispatch formation (exact for every backend; needs IREE and --target)'
predict/t'Always tunespec/'s prediction (MLIR 22, named ops generalized as IREE/'s GPU backends do)'"
complete -c tunespec -n "__fish_tunespec_using_subcommand explain" -l color -d 'When to colour reports: auto (on a terminal, unless NO_COLOR or CLICOLOR=0; CLICOLOR_FORCE=1 forces it), always, never' -r -f -a "auto/t''
always/t''
never/t''"
complete -c tunespec -n "__fish_tunespec_using_subcommand explain" -l iree -d 'IREE/'s compiler library (libIREECompiler.so, a venv or a directory holding it)' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand explain" -l no-default -d 'Link only the user specs'
complete -c tunespec -n "__fish_tunespec_using_subcommand explain" -l derived -d 'Also link tunespec/'s derived default specs (derived by rule, never measured; default: off, or `derived` in tunespec.toml / the user config, or TUNESPEC_DERIVED)'
complete -c tunespec -n "__fish_tunespec_using_subcommand explain" -l no-derived -d 'Link only measured entries and the user/'s own specs, whatever configs and TUNESPEC_DERIVED say'
complete -c tunespec -n "__fish_tunespec_using_subcommand explain" -l exact -d 'Also run IREE/'s configuration phase (the user/'s IREE, found as `tunespec doctor` says) with the library attached, and check each predicted config against the one IREE set (exit 3 on a difference)'
complete -c tunespec -n "__fish_tunespec_using_subcommand explain" -s v -l verbose -d 'Print what tunespec does and how long each phase takes, to stderr (-vv: more detail; TUNESPEC_LOG sets the filter instead)'
complete -c tunespec -n "__fish_tunespec_using_subcommand explain" -s q -l quiet -d 'Print only problems and outputs: no progress bars, no summaries'
complete -c tunespec -n "__fish_tunespec_using_subcommand explain" -s h -l help -d 'Print help (see more with /'--help/')'
complete -c tunespec -n "__fish_tunespec_using_subcommand coverage" -s t -l target -d 'Target (architecture, SKU or alias) whose default specs are linked after the user/'s' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand coverage" -s s -l spec -d 'User spec file or directory, `-` for stdin (repeatable; highest priority first)' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand coverage" -l measured-on -d 'Where a library holds measurements of one op on several devices, take the one measured on DEVICE (words of its record: `local-task`, `H100`, `IREE 3.13.0`; default: the first listed)' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand coverage" -l format -d 'Output format: text (human), one JSON object (json); in short, github and sarif each matcher that never fired is a warning at its spec line (exit status unchanged)' -r -f -a "human/t'For people: tables and text; diagnostics with a snippet of the source'
json/t'One JSON document (schemas in docs/schema/); diagnostics and errors are JSON lines on stderr'
short/t'One line per row (greppable) and per diagnostic (`file:line:col: severity[code]: message`)'
github/t'The human report; diagnostics as GitHub Actions workflow commands'
sarif/t'One SARIF 2.1.0 log of the command/'s diagnostics (results empty when there are none)'"
complete -c tunespec -n "__fish_tunespec_using_subcommand coverage" -l view -d 'Which IR to match: as iree-compile sees it at dispatch level, or as written' -r -f -a "dispatch/t'The payload as iree-compile/'s config materialization sees it: named ops generalized as IREE/'s dispatch formation does'
written/t'The payload as written (what `apply` materializes, like IREE/'s materialize passes on that IR)'"
complete -c tunespec -n "__fish_tunespec_using_subcommand coverage" -l dispatches -d 'Who forms the dispatches matched: IREE for models and tunespec/'s prediction for linalg IR (auto), always IREE (exact on every backend), always the prediction' -r -f -a "auto/t'IREE for payloads only IREE reads (models); tunespec/'s prediction for linalg IR'
iree/t'Always IREE/'s own front end and dispatch formation (exact for every backend; needs IREE and --target)'
predict/t'Always tunespec/'s prediction (MLIR 22, named ops generalized as IREE/'s GPU backends do)'"
complete -c tunespec -n "__fish_tunespec_using_subcommand coverage" -l color -d 'When to colour reports: auto (on a terminal, unless NO_COLOR or CLICOLOR=0; CLICOLOR_FORCE=1 forces it), always, never' -r -f -a "auto/t''
always/t''
never/t''"
complete -c tunespec -n "__fish_tunespec_using_subcommand coverage" -l iree -d 'IREE/'s compiler library (libIREECompiler.so, a venv or a directory holding it)' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand coverage" -l no-default -d 'Link only the user specs'
complete -c tunespec -n "__fish_tunespec_using_subcommand coverage" -l derived -d 'Also link tunespec/'s derived default specs (derived by rule, never measured; default: off, or `derived` in tunespec.toml / the user config, or TUNESPEC_DERIVED)'
complete -c tunespec -n "__fish_tunespec_using_subcommand coverage" -l no-derived -d 'Link only measured entries and the user/'s own specs, whatever configs and TUNESPEC_DERIVED say'
complete -c tunespec -n "__fish_tunespec_using_subcommand coverage" -s v -l verbose -d 'Print what tunespec does and how long each phase takes, to stderr (-vv: more detail; TUNESPEC_LOG sets the filter instead)'
complete -c tunespec -n "__fish_tunespec_using_subcommand coverage" -s q -l quiet -d 'Print only problems and outputs: no progress bars, no summaries'
complete -c tunespec -n "__fish_tunespec_using_subcommand coverage" -s h -l help -d 'Print help (see more with /'--help/')'
complete -c tunespec -n "__fish_tunespec_using_subcommand resolve" -s s -l spec -d 'User spec file, directory or spec library (repeatable; highest priority first)' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand resolve" -l format -d 'Output format: text (human, github), one line per fact and spec (short), one JSON object (json), or a SARIF log of the run/'s diagnostics (sarif)' -r -f -a "human/t'For people: tables and text; diagnostics with a snippet of the source'
json/t'One JSON document (schemas in docs/schema/); diagnostics and errors are JSON lines on stderr'
short/t'One line per row (greppable) and per diagnostic (`file:line:col: severity[code]: message`)'
github/t'The human report; diagnostics as GitHub Actions workflow commands'
sarif/t'One SARIF 2.1.0 log of the command/'s diagnostics (results empty when there are none)'"
complete -c tunespec -n "__fish_tunespec_using_subcommand resolve" -l color -d 'When to colour reports: auto (on a terminal, unless NO_COLOR or CLICOLOR=0; CLICOLOR_FORCE=1 forces it), always, never' -r -f -a "auto/t''
always/t''
never/t''"
complete -c tunespec -n "__fish_tunespec_using_subcommand resolve" -l iree -d 'IREE/'s compiler library (libIREECompiler.so, a venv or a directory holding it)' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand resolve" -l derived -d 'Also link tunespec/'s derived default specs (derived by rule, never measured; default: off, or `derived` in tunespec.toml / the user config, or TUNESPEC_DERIVED)'
complete -c tunespec -n "__fish_tunespec_using_subcommand resolve" -l no-derived -d 'Link only measured entries and the user/'s own specs, whatever configs and TUNESPEC_DERIVED say'
complete -c tunespec -n "__fish_tunespec_using_subcommand resolve" -s v -l verbose -d 'Print what tunespec does and how long each phase takes, to stderr (-vv: more detail; TUNESPEC_LOG sets the filter instead)'
complete -c tunespec -n "__fish_tunespec_using_subcommand resolve" -s q -l quiet -d 'Print only problems and outputs: no progress bars, no summaries'
complete -c tunespec -n "__fish_tunespec_using_subcommand resolve" -s h -l help -d 'Print help (see more with /'--help/')'
complete -c tunespec -n "__fish_tunespec_using_subcommand export" -l format -d 'What to write' -r -f -a "c/t'A C header and source (C99 with alignment attributes; usable from C++)'"
complete -c tunespec -n "__fish_tunespec_using_subcommand export" -s o -l output -d 'Output directory (created if missing); files are written atomically' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand export" -s t -l target -d 'Export only these targets and their fallback chains (repeatable; default: all)' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand export" -l color -d 'When to colour reports: auto (on a terminal, unless NO_COLOR or CLICOLOR=0; CLICOLOR_FORCE=1 forces it), always, never' -r -f -a "auto/t''
always/t''
never/t''"
complete -c tunespec -n "__fish_tunespec_using_subcommand export" -l iree -d 'IREE/'s compiler library (libIREECompiler.so, a venv or a directory holding it)' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand export" -s v -l verbose -d 'Print what tunespec does and how long each phase takes, to stderr (-vv: more detail; TUNESPEC_LOG sets the filter instead)'
complete -c tunespec -n "__fish_tunespec_using_subcommand export" -s q -l quiet -d 'Print only problems and outputs: no progress bars, no summaries'
complete -c tunespec -n "__fish_tunespec_using_subcommand export" -s h -l help -d 'Print help (see more with /'--help/')'
complete -c tunespec -n "__fish_tunespec_using_subcommand targets" -l format -d 'Output format: a table (human, github), one line per target (short), one JSON object per line (json), or a SARIF log of the run/'s diagnostics (sarif)' -r -f -a "human/t'For people: tables and text; diagnostics with a snippet of the source'
json/t'One JSON document (schemas in docs/schema/); diagnostics and errors are JSON lines on stderr'
short/t'One line per row (greppable) and per diagnostic (`file:line:col: severity[code]: message`)'
github/t'The human report; diagnostics as GitHub Actions workflow commands'
sarif/t'One SARIF 2.1.0 log of the command/'s diagnostics (results empty when there are none)'"
complete -c tunespec -n "__fish_tunespec_using_subcommand targets" -l color -d 'When to colour reports: auto (on a terminal, unless NO_COLOR or CLICOLOR=0; CLICOLOR_FORCE=1 forces it), always, never' -r -f -a "auto/t''
always/t''
never/t''"
complete -c tunespec -n "__fish_tunespec_using_subcommand targets" -l iree -d 'IREE/'s compiler library (libIREECompiler.so, a venv or a directory holding it)' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand targets" -s v -l verbose -d 'Print what tunespec does and how long each phase takes, to stderr (-vv: more detail; TUNESPEC_LOG sets the filter instead)'
complete -c tunespec -n "__fish_tunespec_using_subcommand targets" -s q -l quiet -d 'Print only problems and outputs: no progress bars, no summaries'
complete -c tunespec -n "__fish_tunespec_using_subcommand targets" -s h -l help -d 'Print help (see more with /'--help/')'
complete -c tunespec -n "__fish_tunespec_using_subcommand show" -l color -d 'When to colour reports: auto (on a terminal, unless NO_COLOR or CLICOLOR=0; CLICOLOR_FORCE=1 forces it), always, never' -r -f -a "auto/t''
always/t''
never/t''"
complete -c tunespec -n "__fish_tunespec_using_subcommand show" -l iree -d 'IREE/'s compiler library (libIREECompiler.so, a venv or a directory holding it)' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand show" -s v -l verbose -d 'Print what tunespec does and how long each phase takes, to stderr (-vv: more detail; TUNESPEC_LOG sets the filter instead)'
complete -c tunespec -n "__fish_tunespec_using_subcommand show" -s q -l quiet -d 'Print only problems and outputs: no progress bars, no summaries'
complete -c tunespec -n "__fish_tunespec_using_subcommand show" -s h -l help -d 'Print help (see more with /'--help/')'
complete -c tunespec -n "__fish_tunespec_using_subcommand cache; and not __fish_seen_subcommand_from stats clean path help" -l color -d 'When to colour reports: auto (on a terminal, unless NO_COLOR or CLICOLOR=0; CLICOLOR_FORCE=1 forces it), always, never' -r -f -a "auto/t''
always/t''
never/t''"
complete -c tunespec -n "__fish_tunespec_using_subcommand cache; and not __fish_seen_subcommand_from stats clean path help" -l iree -d 'IREE/'s compiler library (libIREECompiler.so, a venv or a directory holding it)' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand cache; and not __fish_seen_subcommand_from stats clean path help" -s v -l verbose -d 'Print what tunespec does and how long each phase takes, to stderr (-vv: more detail; TUNESPEC_LOG sets the filter instead)'
complete -c tunespec -n "__fish_tunespec_using_subcommand cache; and not __fish_seen_subcommand_from stats clean path help" -s q -l quiet -d 'Print only problems and outputs: no progress bars, no summaries'
complete -c tunespec -n "__fish_tunespec_using_subcommand cache; and not __fish_seen_subcommand_from stats clean path help" -s h -l help -d 'Print help (see more with /'--help/')'
complete -c tunespec -n "__fish_tunespec_using_subcommand cache; and not __fish_seen_subcommand_from stats clean path help" -f -a "stats" -d 'Hits, misses, corrupt entries (since the counters were last cleared), entries and bytes'
complete -c tunespec -n "__fish_tunespec_using_subcommand cache; and not __fish_seen_subcommand_from stats clean path help" -f -a "clean" -d 'Remove every entry (and temporary files left by crashed processes)'
complete -c tunespec -n "__fish_tunespec_using_subcommand cache; and not __fish_seen_subcommand_from stats clean path help" -f -a "path" -d 'Print the cache directory'
complete -c tunespec -n "__fish_tunespec_using_subcommand cache; and not __fish_seen_subcommand_from stats clean path help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c tunespec -n "__fish_tunespec_using_subcommand cache; and __fish_seen_subcommand_from stats" -l format -d 'Output format: text (human, github), one line of `name=value` (short), one JSON object (json), or a SARIF log of the run/'s diagnostics (sarif)' -r -f -a "human/t'For people: tables and text; diagnostics with a snippet of the source'
json/t'One JSON document (schemas in docs/schema/); diagnostics and errors are JSON lines on stderr'
short/t'One line per row (greppable) and per diagnostic (`file:line:col: severity[code]: message`)'
github/t'The human report; diagnostics as GitHub Actions workflow commands'
sarif/t'One SARIF 2.1.0 log of the command/'s diagnostics (results empty when there are none)'"
complete -c tunespec -n "__fish_tunespec_using_subcommand cache; and __fish_seen_subcommand_from stats" -l color -d 'When to colour reports: auto (on a terminal, unless NO_COLOR or CLICOLOR=0; CLICOLOR_FORCE=1 forces it), always, never' -r -f -a "auto/t''
always/t''
never/t''"
complete -c tunespec -n "__fish_tunespec_using_subcommand cache; and __fish_seen_subcommand_from stats" -l iree -d 'IREE/'s compiler library (libIREECompiler.so, a venv or a directory holding it)' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand cache; and __fish_seen_subcommand_from stats" -s v -l verbose -d 'Print what tunespec does and how long each phase takes, to stderr (-vv: more detail; TUNESPEC_LOG sets the filter instead)'
complete -c tunespec -n "__fish_tunespec_using_subcommand cache; and __fish_seen_subcommand_from stats" -s q -l quiet -d 'Print only problems and outputs: no progress bars, no summaries'
complete -c tunespec -n "__fish_tunespec_using_subcommand cache; and __fish_seen_subcommand_from stats" -s h -l help -d 'Print help (see more with /'--help/')'
complete -c tunespec -n "__fish_tunespec_using_subcommand cache; and __fish_seen_subcommand_from clean" -l color -d 'When to colour reports: auto (on a terminal, unless NO_COLOR or CLICOLOR=0; CLICOLOR_FORCE=1 forces it), always, never' -r -f -a "auto/t''
always/t''
never/t''"
complete -c tunespec -n "__fish_tunespec_using_subcommand cache; and __fish_seen_subcommand_from clean" -l iree -d 'IREE/'s compiler library (libIREECompiler.so, a venv or a directory holding it)' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand cache; and __fish_seen_subcommand_from clean" -l counters -d 'Also clear the counters'
complete -c tunespec -n "__fish_tunespec_using_subcommand cache; and __fish_seen_subcommand_from clean" -s v -l verbose -d 'Print what tunespec does and how long each phase takes, to stderr (-vv: more detail; TUNESPEC_LOG sets the filter instead)'
complete -c tunespec -n "__fish_tunespec_using_subcommand cache; and __fish_seen_subcommand_from clean" -s q -l quiet -d 'Print only problems and outputs: no progress bars, no summaries'
complete -c tunespec -n "__fish_tunespec_using_subcommand cache; and __fish_seen_subcommand_from clean" -s h -l help -d 'Print help (see more with /'--help/')'
complete -c tunespec -n "__fish_tunespec_using_subcommand cache; and __fish_seen_subcommand_from path" -l color -d 'When to colour reports: auto (on a terminal, unless NO_COLOR or CLICOLOR=0; CLICOLOR_FORCE=1 forces it), always, never' -r -f -a "auto/t''
always/t''
never/t''"
complete -c tunespec -n "__fish_tunespec_using_subcommand cache; and __fish_seen_subcommand_from path" -l iree -d 'IREE/'s compiler library (libIREECompiler.so, a venv or a directory holding it)' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand cache; and __fish_seen_subcommand_from path" -s v -l verbose -d 'Print what tunespec does and how long each phase takes, to stderr (-vv: more detail; TUNESPEC_LOG sets the filter instead)'
complete -c tunespec -n "__fish_tunespec_using_subcommand cache; and __fish_seen_subcommand_from path" -s q -l quiet -d 'Print only problems and outputs: no progress bars, no summaries'
complete -c tunespec -n "__fish_tunespec_using_subcommand cache; and __fish_seen_subcommand_from path" -s h -l help -d 'Print help (see more with /'--help/')'
complete -c tunespec -n "__fish_tunespec_using_subcommand cache; and __fish_seen_subcommand_from help" -f -a "stats" -d 'Hits, misses, corrupt entries (since the counters were last cleared), entries and bytes'
complete -c tunespec -n "__fish_tunespec_using_subcommand cache; and __fish_seen_subcommand_from help" -f -a "clean" -d 'Remove every entry (and temporary files left by crashed processes)'
complete -c tunespec -n "__fish_tunespec_using_subcommand cache; and __fish_seen_subcommand_from help" -f -a "path" -d 'Print the cache directory'
complete -c tunespec -n "__fish_tunespec_using_subcommand cache; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c tunespec -n "__fish_tunespec_using_subcommand doctor" -l format -d 'Output format' -r -f -a "human/t'Lines for people'
json/t'One JSON document'"
complete -c tunespec -n "__fish_tunespec_using_subcommand doctor" -l color -d 'When to colour reports: auto (on a terminal, unless NO_COLOR or CLICOLOR=0; CLICOLOR_FORCE=1 forces it), always, never' -r -f -a "auto/t''
always/t''
never/t''"
complete -c tunespec -n "__fish_tunespec_using_subcommand doctor" -l iree -d 'IREE/'s compiler library (libIREECompiler.so, a venv or a directory holding it)' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand doctor" -s v -l verbose -d 'Print what tunespec does and how long each phase takes, to stderr (-vv: more detail; TUNESPEC_LOG sets the filter instead)'
complete -c tunespec -n "__fish_tunespec_using_subcommand doctor" -s q -l quiet -d 'Print only problems and outputs: no progress bars, no summaries'
complete -c tunespec -n "__fish_tunespec_using_subcommand doctor" -s h -l help -d 'Print help (see more with /'--help/')'
complete -c tunespec -n "__fish_tunespec_using_subcommand import-iree" -s t -l target -d 'ROCm target (architecture or SKU, e.g. gfx942, mi300x); repeatable. Default: every gfx architecture in the registry (those IREE has no built-in spec for are skipped)' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand import-iree" -l iree-opt -d 'iree-opt of the compiler to take the specs from (default: $TUNESPEC_IREE_OPT, then $TUNESPEC_IREE_VENV/bin/iree-opt, then iree-opt on PATH)' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand import-iree" -s o -l output -d 'The spec library directory to write (created, or replaced if an earlier import wrote it)' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand import-iree" -l color -d 'When to colour reports: auto (on a terminal, unless NO_COLOR or CLICOLOR=0; CLICOLOR_FORCE=1 forces it), always, never' -r -f -a "auto/t''
always/t''
never/t''"
complete -c tunespec -n "__fish_tunespec_using_subcommand import-iree" -l iree -d 'IREE/'s compiler library (libIREECompiler.so, a venv or a directory holding it)' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand import-iree" -s v -l verbose -d 'Print what tunespec does and how long each phase takes, to stderr (-vv: more detail; TUNESPEC_LOG sets the filter instead)'
complete -c tunespec -n "__fish_tunespec_using_subcommand import-iree" -s q -l quiet -d 'Print only problems and outputs: no progress bars, no summaries'
complete -c tunespec -n "__fish_tunespec_using_subcommand import-iree" -s h -l help -d 'Print help (see more with /'--help/')'
complete -c tunespec -n "__fish_tunespec_using_subcommand import-tuner" -s t -l target -d 'The target the runs were measured on (architecture or SKU, e.g. gfx942, mi300x)' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand import-tuner" -s o -l output -d 'The spec library directory to write (created, or merged into if this command wrote it)' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand import-tuner" -l format -d 'Output format: json prints a document on stdout (docs/schema/import-tuner.schema.json); the others print notes and a summary on stderr' -r -f -a "human/t'For people: tables and text; diagnostics with a snippet of the source'
json/t'One JSON document (schemas in docs/schema/); diagnostics and errors are JSON lines on stderr'
short/t'One line per row (greppable) and per diagnostic (`file:line:col: severity[code]: message`)'
github/t'The human report; diagnostics as GitHub Actions workflow commands'
sarif/t'One SARIF 2.1.0 log of the command/'s diagnostics (results empty when there are none)'"
complete -c tunespec -n "__fish_tunespec_using_subcommand import-tuner" -l color -d 'When to colour reports: auto (on a terminal, unless NO_COLOR or CLICOLOR=0; CLICOLOR_FORCE=1 forces it), always, never' -r -f -a "auto/t''
always/t''
never/t''"
complete -c tunespec -n "__fish_tunespec_using_subcommand import-tuner" -l iree -d 'IREE/'s compiler library (libIREECompiler.so, a venv or a directory holding it)' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand import-tuner" -s v -l verbose -d 'Print what tunespec does and how long each phase takes, to stderr (-vv: more detail; TUNESPEC_LOG sets the filter instead)'
complete -c tunespec -n "__fish_tunespec_using_subcommand import-tuner" -s q -l quiet -d 'Print only problems and outputs: no progress bars, no summaries'
complete -c tunespec -n "__fish_tunespec_using_subcommand import-tuner" -s h -l help -d 'Print help (see more with /'--help/')'
complete -c tunespec -n "__fish_tunespec_using_subcommand check" -l store -d 'Check the best entries a shared store holds too, every target/'s (pulled read-only beside the cache, where the report/'s paths point; redis://, file://, s3://, gs://, azblob://; docs/store.md); with --bench, re-measure them. A store that fails is exit 2' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand check" -l measured-on -d 'With --store: only the entries whose device identity contains these words (H100, local-task), as link/'s --measured-on' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand check" -s t -l target -d 'The architecture to compile for (e.g. gfx942); default: each spec/'s library target' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand check" -s j -l jobs -d 'IREE compiles at once (default: the number of CPUs)' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand check" -s d -l device -d 'The runtime/'s device: local-task, local-sync, cuda, hip, vulkan (or a URI, cuda://1); repeated (cuda://0 --device cuda://1): devices of one driver timing at once, one worker each, every case on one of them' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand check" -l rounds -d 'Rounds before the first look: in each, IREE/'s config and the library/'s are timed by one runtime process each, order reversed every round; the rounds are what is judged' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand check" -l max-rounds -d 'The most rounds: an unsettled comparison doubles its rounds up to this, each look at --alpha over the number of looks' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand check" -l budget -d 'The most seconds one comparison spends adding rounds (none: until --max-rounds)' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand check" -l repetitions -d 'Repetitions per run (their median is the run/'s time)' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand check" -l min-time -d 'Seconds of warm-up before, and the least time of each repetition' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand check" -l alpha -d 'The chance of calling a config faster or slower when it is not, over all looks' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand check" -l min-effect -d 'The smallest relative difference of medians called faster or slower' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand check" -l format -d 'Output format' -r -f -a "human/t'For people: tables and text; diagnostics with a snippet of the source'
json/t'One JSON document (schemas in docs/schema/); diagnostics and errors are JSON lines on stderr'
short/t'One line per row (greppable) and per diagnostic (`file:line:col: severity[code]: message`)'
github/t'The human report; diagnostics as GitHub Actions workflow commands'
sarif/t'One SARIF 2.1.0 log of the command/'s diagnostics (results empty when there are none)'"
complete -c tunespec -n "__fish_tunespec_using_subcommand check" -l color -d 'When to colour reports: auto (on a terminal, unless NO_COLOR or CLICOLOR=0; CLICOLOR_FORCE=1 forces it), always, never' -r -f -a "auto/t''
always/t''
never/t''"
complete -c tunespec -n "__fish_tunespec_using_subcommand check" -l iree -d 'IREE/'s compiler library (libIREECompiler.so, a venv or a directory holding it)' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand check" -l fix -d 'Migrate known syntax changes in place (atomic), reporting each edit'
complete -c tunespec -n "__fish_tunespec_using_subcommand check" -l bench -d 'Re-measure each measured entry with the installed IREE on --device (against IREE/'s own config, as `bench` does); one that no longer wins is a warning'
complete -c tunespec -n "__fish_tunespec_using_subcommand check" -l deny-slower -d 'With --bench: an entry that no longer beats IREE/'s own config fails the check (exit 1)'
complete -c tunespec -n "__fish_tunespec_using_subcommand check" -l require-iree -d 'Fail (exit 2) when IREE/'s compiler is not found, instead of reading the specs with tunespec/'s own parser and saying what was not checked: for a CI job that means to check against IREE'
complete -c tunespec -n "__fish_tunespec_using_subcommand check" -s v -l verbose -d 'Print what tunespec does and how long each phase takes, to stderr (-vv: more detail; TUNESPEC_LOG sets the filter instead)'
complete -c tunespec -n "__fish_tunespec_using_subcommand check" -s q -l quiet -d 'Print only problems and outputs: no progress bars, no summaries'
complete -c tunespec -n "__fish_tunespec_using_subcommand check" -s h -l help -d 'Print help (see more with /'--help/')'
complete -c tunespec -n "__fish_tunespec_using_subcommand bench" -s t -l target -d 'Target (architecture, SKU or alias) whose default specs are linked after the user/'s' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand bench" -s s -l spec -d 'User spec file or directory, `-` for stdin (repeatable; highest priority first)' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand bench" -l measured-on -d 'Where a library holds measurements of one op on several devices, take the one measured on DEVICE (words of its record: `local-task`, `H100`, `IREE 3.13.0`; default: the first listed)' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand bench" -s d -l device -d 'The runtime/'s device: local-task, local-sync, cuda, hip, vulkan (or a URI, cuda://1); repeated (cuda://0 --device cuda://1): devices of one driver timing at once, one worker each, every case on one of them' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand bench" -l rounds -d 'Rounds before the first look: in each, IREE/'s config and the library/'s are timed by one runtime process each, order reversed every round; the rounds are what is judged' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand bench" -l max-rounds -d 'The most rounds: an unsettled comparison doubles its rounds up to this, each look at --alpha over the number of looks' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand bench" -l budget -d 'The most seconds one comparison spends adding rounds (none: until --max-rounds)' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand bench" -l repetitions -d 'Repetitions per run (their median is the run/'s time)' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand bench" -l min-time -d 'Seconds of warm-up before, and the least time of each repetition' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand bench" -l alpha -d 'The chance of calling a config faster or slower when it is not, over all looks' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand bench" -l min-effect -d 'The smallest relative difference of medians called faster or slower' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand bench" -s j -l jobs -d 'Compiles at once (default: the number of CPUs); timing runs one at a time' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand bench" -l atol -d 'Absolute output tolerance (default: by element type; f32 1e-2)' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand bench" -l rtol -d 'Relative output tolerance (default: by element type; f32 1e-3)' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand bench" -l function -d 'The function to time (default: every exported function, a row each)' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand bench" -l shard -d 'Take the deterministic share K of N of the cases (1-based), e.g. 2/8; auto (or auto/N): K and N from the scheduler (a Slurm array, a Kubernetes Indexed Job, RANK/WORLD_SIZE)' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand bench" -l write -d 'Write the matchers that won (faster, outputs equal) as measured entries into this library (created, or merged into by matcher key and device: faster wins); with a PAYLOAD and --dispatches, the matcher of each dispatch that measured faster alone' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand bench" -l store -d 'After --write/'s library is written, push its entries to this shared store (redis://, file://, s3://, gs://, azblob://; docs/store.md). A store that fails is a warning: the local library is kept and the exit status is unchanged' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand bench" -l keep -d 'Keep the artifacts (payloads, vmfbs, inputs, outputs, dispatch dumps) in this directory: a plan with its results, which `tunespec decide DIR` decides again' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand bench" -l plan -d 'Only compile: write the plan (modules, hashes, what to time) into this new directory, for `tunespec time DIR` on the device/'s machine (IREE/'s runtime alone) and `tunespec decide DIR` anywhere' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand bench" -l iree-flag -d 'An extra iree-compile flag (repeatable), e.g. --iree-flag=--iree-llvmcpu-target-cpu=znver4' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand bench" -l format -d 'Output format' -r -f -a "human/t'For people: tables and text; diagnostics with a snippet of the source'
json/t'One JSON document (schemas in docs/schema/); diagnostics and errors are JSON lines on stderr'
short/t'One line per row (greppable) and per diagnostic (`file:line:col: severity[code]: message`)'
github/t'The human report; diagnostics as GitHub Actions workflow commands'
sarif/t'One SARIF 2.1.0 log of the command/'s diagnostics (results empty when there are none)'"
complete -c tunespec -n "__fish_tunespec_using_subcommand bench" -l color -d 'When to colour reports: auto (on a terminal, unless NO_COLOR or CLICOLOR=0; CLICOLOR_FORCE=1 forces it), always, never' -r -f -a "auto/t''
always/t''
never/t''"
complete -c tunespec -n "__fish_tunespec_using_subcommand bench" -l iree -d 'IREE/'s compiler library (libIREECompiler.so, a venv or a directory holding it)' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand bench" -l no-default -d 'Link only the user specs'
complete -c tunespec -n "__fish_tunespec_using_subcommand bench" -l derived -d 'Also link tunespec/'s derived default specs (derived by rule, never measured; default: off, or `derived` in tunespec.toml / the user config, or TUNESPEC_DERIVED)'
complete -c tunespec -n "__fish_tunespec_using_subcommand bench" -l no-derived -d 'Link only measured entries and the user/'s own specs, whatever configs and TUNESPEC_DERIVED say'
complete -c tunespec -n "__fish_tunespec_using_subcommand bench" -l dispatches -d 'Also time each dispatch whose config changed, alone (models with several dispatches)'
complete -c tunespec -n "__fish_tunespec_using_subcommand bench" -l time-unchanged -d 'Time payloads whose configs the library leaves unchanged too: IREE/'s config against itself, to see how often the rule calls a difference where there is none (A/A)'
complete -c tunespec -n "__fish_tunespec_using_subcommand bench" -s v -l verbose -d 'Print what tunespec does and how long each phase takes, to stderr (-vv: more detail; TUNESPEC_LOG sets the filter instead)'
complete -c tunespec -n "__fish_tunespec_using_subcommand bench" -s q -l quiet -d 'Print only problems and outputs: no progress bars, no summaries'
complete -c tunespec -n "__fish_tunespec_using_subcommand bench" -s h -l help -d 'Print help (see more with /'--help/')'
complete -c tunespec -n "__fish_tunespec_using_subcommand time" -s d -l device -d 'The runtime/'s device: local-task, local-sync, cuda, hip, vulkan (or a URI, cuda://1); repeated (cuda://0 --device cuda://1): devices of one driver timing at once, one worker each, every case on one of them' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand time" -l rounds -d 'Rounds before the first look: in each, IREE/'s config and the library/'s are timed by one runtime process each, order reversed every round; the rounds are what is judged' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand time" -l max-rounds -d 'The most rounds: an unsettled comparison doubles its rounds up to this, each look at --alpha over the number of looks' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand time" -l budget -d 'The most seconds one comparison spends adding rounds (none: until --max-rounds)' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand time" -l repetitions -d 'Repetitions per run (their median is the run/'s time)' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand time" -l min-time -d 'Seconds of warm-up before, and the least time of each repetition' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand time" -l alpha -d 'The chance of calling a config faster or slower when it is not, over all looks' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand time" -l min-effect -d 'The smallest relative difference of medians called faster or slower' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand time" -l shard -d 'Time the deterministic share K of N of the plan/'s cases (1-based), e.g. 2/8, or auto (auto/N): K and N from the scheduler (a Slurm array, a Kubernetes Indexed Job, RANK/WORLD_SIZE); the shards/' results copied into one plan directory make it timed whole' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand time" -l atol -d 'Absolute output tolerance (default: by element type; f32 1e-2)' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand time" -l rtol -d 'Relative output tolerance (default: by element type; f32 1e-3)' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand time" -l color -d 'When to colour reports: auto (on a terminal, unless NO_COLOR or CLICOLOR=0; CLICOLOR_FORCE=1 forces it), always, never' -r -f -a "auto/t''
always/t''
never/t''"
complete -c tunespec -n "__fish_tunespec_using_subcommand time" -l iree -d 'IREE/'s compiler library (libIREECompiler.so, a venv or a directory holding it)' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand time" -s v -l verbose -d 'Print what tunespec does and how long each phase takes, to stderr (-vv: more detail; TUNESPEC_LOG sets the filter instead)'
complete -c tunespec -n "__fish_tunespec_using_subcommand time" -s q -l quiet -d 'Print only problems and outputs: no progress bars, no summaries'
complete -c tunespec -n "__fish_tunespec_using_subcommand time" -s h -l help -d 'Print help (see more with /'--help/')'
complete -c tunespec -n "__fish_tunespec_using_subcommand decide" -l write -d 'Write the matchers that won as measured entries into this library (created, or merged into by matcher key and device: faster wins); the plan must have been made with --target' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand decide" -l format -d 'Output format' -r -f -a "human/t'For people: tables and text; diagnostics with a snippet of the source'
json/t'One JSON document (schemas in docs/schema/); diagnostics and errors are JSON lines on stderr'
short/t'One line per row (greppable) and per diagnostic (`file:line:col: severity[code]: message`)'
github/t'The human report; diagnostics as GitHub Actions workflow commands'
sarif/t'One SARIF 2.1.0 log of the command/'s diagnostics (results empty when there are none)'"
complete -c tunespec -n "__fish_tunespec_using_subcommand decide" -l color -d 'When to colour reports: auto (on a terminal, unless NO_COLOR or CLICOLOR=0; CLICOLOR_FORCE=1 forces it), always, never' -r -f -a "auto/t''
always/t''
never/t''"
complete -c tunespec -n "__fish_tunespec_using_subcommand decide" -l iree -d 'IREE/'s compiler library (libIREECompiler.so, a venv or a directory holding it)' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand decide" -s v -l verbose -d 'Print what tunespec does and how long each phase takes, to stderr (-vv: more detail; TUNESPEC_LOG sets the filter instead)'
complete -c tunespec -n "__fish_tunespec_using_subcommand decide" -s q -l quiet -d 'Print only problems and outputs: no progress bars, no summaries'
complete -c tunespec -n "__fish_tunespec_using_subcommand decide" -s h -l help -d 'Print help (see more with /'--help/')'
complete -c tunespec -n "__fish_tunespec_using_subcommand tune" -l keys -d 'Tune a spec library/'s keys instead of a model (repeatable: spec files, directories, libraries): each root matcher becomes an op of its own shape, types and layout, and those ops are the model (written to DIR/keys-model.mlir)' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand tune" -s t -l target -d 'The target: `host` (IREE/'s llvm-cpu for this machine/'s CPU), a CPU target a spec library defines, or a GPU target (`gfx942`, `sm_90`, ...)' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand tune" -s s -l spec -d 'A spec library (repeatable): one may define the target; the config the linked library gives a dispatch, when another than IREE/'s, is candidate 1' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand tune" -s o -l output -d 'The output directory: journal, report and the winners/' library' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand tune" -l store -d 'After the winners/' library is written, push its entries to this shared store (redis://, file://, s3://, gs://, azblob://; docs/store.md). A store that fails is a warning: the local library is kept and the exit status is unchanged' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand tune" -l budget -d 'The time this run may take (`90s`, `10m`, `1h`, or seconds); the screen takes at most 60% of it. Default: no limit' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand tune" -l max-candidates -d 'The most candidates per dispatch, IREE/'s own config included' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand tune" -l screen-rounds -d 'Rounds of the screen (every candidate)' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand tune" -s d -l device -d 'The runtime/'s device: local-task or local-sync for a CPU target, the target/'s GPU (`cuda`, `hip`, `cuda://1`) for a GPU target; repeated (cuda://0 --device cuda://1): devices of one driver timing at once, one worker each' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand tune" -l rounds -d 'Rounds of the confirmation before its first look' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand tune" -l max-rounds -d 'The most rounds of a confirmation' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand tune" -l repetitions -d 'Repetitions per run (their median is the run/'s time)' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand tune" -l min-time -d 'Seconds of warm-up before, and the least time of each repetition' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand tune" -l alpha -d 'The chance of calling a config faster or slower when it is not, over all looks' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand tune" -l min-effect -d 'The smallest relative difference of medians called faster or slower' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand tune" -l shard -d 'Search only the deterministic share K of N of the dispatches (1-based), e.g. 2/4: each shard on its own machine, the libraries merged afterwards' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand tune" -s j -l jobs -d 'Compiles at once (default: the number of CPUs); timing runs one at a time' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand tune" -l iree-flag -d 'An extra iree-compile flag (repeatable)' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand tune" -l format -d 'Output format: human (a table per dispatch) or json (docs/schema/tune.schema.json)' -r -f -a "human/t'For people: tables and text; diagnostics with a snippet of the source'
json/t'One JSON document (schemas in docs/schema/); diagnostics and errors are JSON lines on stderr'
short/t'One line per row (greppable) and per diagnostic (`file:line:col: severity[code]: message`)'
github/t'The human report; diagnostics as GitHub Actions workflow commands'
sarif/t'One SARIF 2.1.0 log of the command/'s diagnostics (results empty when there are none)'"
complete -c tunespec -n "__fish_tunespec_using_subcommand tune" -l dispatch -d 'Only the dispatches whose key (`matmul 512x512x512`) or dispatch function/'s name contains PATTERN (repeatable: any of them); a pattern that selects none is an error listing the model/'s dispatches' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand tune" -l order -d 'The order candidates are taken in (--max-candidates and --budget take the first): model (the target/'s cheap model, docs/tune.md), nearest (llvm-cpu only: the tile grid nearest IREE/'s own config first) or random (the same on every machine: the model/'s baseline)' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand tune" -l solutions -d 'GPU targets: the most solutions of each pipeline/'s constraints (IREE/'s space) enumerated before the model orders them' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand tune" -l color -d 'When to colour reports: auto (on a terminal, unless NO_COLOR or CLICOLOR=0; CLICOLOR_FORCE=1 forces it), always, never' -r -f -a "auto/t''
always/t''
never/t''"
complete -c tunespec -n "__fish_tunespec_using_subcommand tune" -l iree -d 'IREE/'s compiler library (libIREECompiler.so, a venv or a directory holding it)' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand tune" -l remeasure -d 'With --store: search the dispatches whose key the store already holds for this device, IREE, flags and target too (by default they are skipped, and the report says so)'
complete -c tunespec -n "__fish_tunespec_using_subcommand tune" -l compile-only -d 'Generate and compile every candidate, time none: for a GPU target on a machine without that GPU. Writes DIR/candidates/<matcher>/<N>_spec.mlir and DIR/compile-report.json'
complete -c tunespec -n "__fish_tunespec_using_subcommand tune" -l plan -d 'Compile here, time there: generate and compile every candidate into DIR (a new or empty directory) as a plan, for `tunespec time DIR --device D` on the device/'s machine (IREE/'s runtime alone: the screen, then the survivors/' confirmation) and `tunespec decide DIR` (the report and DIR/library)'
complete -c tunespec -n "__fish_tunespec_using_subcommand tune" -s v -l verbose -d 'Print what tunespec does and how long each phase takes, to stderr (-vv: more detail; TUNESPEC_LOG sets the filter instead)'
complete -c tunespec -n "__fish_tunespec_using_subcommand tune" -s q -l quiet -d 'Print only problems and outputs: no progress bars, no summaries'
complete -c tunespec -n "__fish_tunespec_using_subcommand tune" -s h -l help -d 'Print help (see more with /'--help/')'
complete -c tunespec -n "__fish_tunespec_using_subcommand store; and not __fish_seen_subcommand_from push pull ls purge help" -l color -d 'When to colour reports: auto (on a terminal, unless NO_COLOR or CLICOLOR=0; CLICOLOR_FORCE=1 forces it), always, never' -r -f -a "auto/t''
always/t''
never/t''"
complete -c tunespec -n "__fish_tunespec_using_subcommand store; and not __fish_seen_subcommand_from push pull ls purge help" -l iree -d 'IREE/'s compiler library (libIREECompiler.so, a venv or a directory holding it)' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand store; and not __fish_seen_subcommand_from push pull ls purge help" -s v -l verbose -d 'Print what tunespec does and how long each phase takes, to stderr (-vv: more detail; TUNESPEC_LOG sets the filter instead)'
complete -c tunespec -n "__fish_tunespec_using_subcommand store; and not __fish_seen_subcommand_from push pull ls purge help" -s q -l quiet -d 'Print only problems and outputs: no progress bars, no summaries'
complete -c tunespec -n "__fish_tunespec_using_subcommand store; and not __fish_seen_subcommand_from push pull ls purge help" -s h -l help -d 'Print help (see more with /'--help/')'
complete -c tunespec -n "__fish_tunespec_using_subcommand store; and not __fish_seen_subcommand_from push pull ls purge help" -f -a "push" -d 'Push a measured library/'s entries (bench --write, import-tuner) to the store'
complete -c tunespec -n "__fish_tunespec_using_subcommand store; and not __fish_seen_subcommand_from push pull ls purge help" -f -a "pull" -d 'Write the store/'s best entries for a target and device as a measured library (byte-identical for the same store content)'
complete -c tunespec -n "__fish_tunespec_using_subcommand store; and not __fish_seen_subcommand_from push pull ls purge help" -f -a "ls" -d 'List the best entry of every key in the store'
complete -c tunespec -n "__fish_tunespec_using_subcommand store; and not __fish_seen_subcommand_from push pull ls purge help" -f -a "purge" -d 'Remove the entries measured with an IREE version, on a device, before a date, or a whole namespace'
complete -c tunespec -n "__fish_tunespec_using_subcommand store; and not __fish_seen_subcommand_from push pull ls purge help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c tunespec -n "__fish_tunespec_using_subcommand store; and __fish_seen_subcommand_from push" -l store -d 'The shared store: redis://HOST[:PORT][/DB], file:///ABSOLUTE/PATH, s3://BUCKET[/PREFIX], gs://BUCKET[/PREFIX] or azblob://CONTAINER[/PREFIX], with ?namespace=NAME (docs/store.md)' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand store; and __fish_seen_subcommand_from push" -l color -d 'When to colour reports: auto (on a terminal, unless NO_COLOR or CLICOLOR=0; CLICOLOR_FORCE=1 forces it), always, never' -r -f -a "auto/t''
always/t''
never/t''"
complete -c tunespec -n "__fish_tunespec_using_subcommand store; and __fish_seen_subcommand_from push" -l iree -d 'IREE/'s compiler library (libIREECompiler.so, a venv or a directory holding it)' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand store; and __fish_seen_subcommand_from push" -l read-only -d 'Never write to the store (CI); also TUNESPEC_STORE_READ_ONLY=1'
complete -c tunespec -n "__fish_tunespec_using_subcommand store; and __fish_seen_subcommand_from push" -s v -l verbose -d 'Print what tunespec does and how long each phase takes, to stderr (-vv: more detail; TUNESPEC_LOG sets the filter instead)'
complete -c tunespec -n "__fish_tunespec_using_subcommand store; and __fish_seen_subcommand_from push" -s q -l quiet -d 'Print only problems and outputs: no progress bars, no summaries'
complete -c tunespec -n "__fish_tunespec_using_subcommand store; and __fish_seen_subcommand_from push" -s h -l help -d 'Print help (see more with /'--help/')'
complete -c tunespec -n "__fish_tunespec_using_subcommand store; and __fish_seen_subcommand_from pull" -l store -d 'The shared store: redis://HOST[:PORT][/DB], file:///ABSOLUTE/PATH, s3://BUCKET[/PREFIX], gs://BUCKET[/PREFIX] or azblob://CONTAINER[/PREFIX], with ?namespace=NAME (docs/store.md)' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand store; and __fish_seen_subcommand_from pull" -l target -d 'Only entries for this target (gfx942, sm_90); default: every target' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand store; and __fish_seen_subcommand_from pull" -l device -d 'Only entries whose device identity contains these words (MI300X, local-task), as link/'s --measured-on; default: every device' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand store; and __fish_seen_subcommand_from pull" -s o -l output -d 'The library to write (replaced whole; a directory that is not a measured library is refused)' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand store; and __fish_seen_subcommand_from pull" -s s -l spec -d 'A spec library that defines the target (repeatable): its definition goes into the pulled library, which then loads alone' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand store; and __fish_seen_subcommand_from pull" -l color -d 'When to colour reports: auto (on a terminal, unless NO_COLOR or CLICOLOR=0; CLICOLOR_FORCE=1 forces it), always, never' -r -f -a "auto/t''
always/t''
never/t''"
complete -c tunespec -n "__fish_tunespec_using_subcommand store; and __fish_seen_subcommand_from pull" -l iree -d 'IREE/'s compiler library (libIREECompiler.so, a venv or a directory holding it)' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand store; and __fish_seen_subcommand_from pull" -l read-only -d 'Never write to the store (CI); also TUNESPEC_STORE_READ_ONLY=1'
complete -c tunespec -n "__fish_tunespec_using_subcommand store; and __fish_seen_subcommand_from pull" -s v -l verbose -d 'Print what tunespec does and how long each phase takes, to stderr (-vv: more detail; TUNESPEC_LOG sets the filter instead)'
complete -c tunespec -n "__fish_tunespec_using_subcommand store; and __fish_seen_subcommand_from pull" -s q -l quiet -d 'Print only problems and outputs: no progress bars, no summaries'
complete -c tunespec -n "__fish_tunespec_using_subcommand store; and __fish_seen_subcommand_from pull" -s h -l help -d 'Print help (see more with /'--help/')'
complete -c tunespec -n "__fish_tunespec_using_subcommand store; and __fish_seen_subcommand_from ls" -l store -d 'The shared store: redis://HOST[:PORT][/DB], file:///ABSOLUTE/PATH, s3://BUCKET[/PREFIX], gs://BUCKET[/PREFIX] or azblob://CONTAINER[/PREFIX], with ?namespace=NAME (docs/store.md)' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand store; and __fish_seen_subcommand_from ls" -l format -d 'Output format: a table (human, github), one line per key (short), one JSON object (json), or a SARIF log of the run/'s diagnostics (sarif)' -r -f -a "human/t'For people: tables and text; diagnostics with a snippet of the source'
json/t'One JSON document (schemas in docs/schema/); diagnostics and errors are JSON lines on stderr'
short/t'One line per row (greppable) and per diagnostic (`file:line:col: severity[code]: message`)'
github/t'The human report; diagnostics as GitHub Actions workflow commands'
sarif/t'One SARIF 2.1.0 log of the command/'s diagnostics (results empty when there are none)'"
complete -c tunespec -n "__fish_tunespec_using_subcommand store; and __fish_seen_subcommand_from ls" -l color -d 'When to colour reports: auto (on a terminal, unless NO_COLOR or CLICOLOR=0; CLICOLOR_FORCE=1 forces it), always, never' -r -f -a "auto/t''
always/t''
never/t''"
complete -c tunespec -n "__fish_tunespec_using_subcommand store; and __fish_seen_subcommand_from ls" -l iree -d 'IREE/'s compiler library (libIREECompiler.so, a venv or a directory holding it)' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand store; and __fish_seen_subcommand_from ls" -l read-only -d 'Never write to the store (CI); also TUNESPEC_STORE_READ_ONLY=1'
complete -c tunespec -n "__fish_tunespec_using_subcommand store; and __fish_seen_subcommand_from ls" -s v -l verbose -d 'Print what tunespec does and how long each phase takes, to stderr (-vv: more detail; TUNESPEC_LOG sets the filter instead)'
complete -c tunespec -n "__fish_tunespec_using_subcommand store; and __fish_seen_subcommand_from ls" -s q -l quiet -d 'Print only problems and outputs: no progress bars, no summaries'
complete -c tunespec -n "__fish_tunespec_using_subcommand store; and __fish_seen_subcommand_from ls" -s h -l help -d 'Print help (see more with /'--help/')'
complete -c tunespec -n "__fish_tunespec_using_subcommand store; and __fish_seen_subcommand_from purge" -l store -d 'The shared store: redis://HOST[:PORT][/DB], file:///ABSOLUTE/PATH, s3://BUCKET[/PREFIX], gs://BUCKET[/PREFIX] or azblob://CONTAINER[/PREFIX], with ?namespace=NAME (docs/store.md)' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand store; and __fish_seen_subcommand_from purge" -l iree-version -d 'Entries measured with this IREE version (3.12.0)' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand store; and __fish_seen_subcommand_from purge" -l device -d 'Entries whose device identity contains these words' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand store; and __fish_seen_subcommand_from purge" -l older-than -d 'Entries measured more than DAYS days ago (and undated ones)' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand store; and __fish_seen_subcommand_from purge" -l namespace -d 'Every entry of this namespace (disowns poisoned results whole)' -r
complete -c tunespec -n "__fish_tunespec_using_subcommand store; and __fish_seen_subcommand_from purge" -l color -d 'When to colour reports: auto (on a terminal, unless NO_COLOR or CLICOLOR=0; CLICOLOR_FORCE=1 forces it), always, never' -r -f -a "auto/t''
always/t''
never/t''"
complete -c tunespec -n "__fish_tunespec_using_subcommand store; and __fish_seen_subcommand_from purge" -l iree -d 'IREE/'s compiler library (libIREECompiler.so, a venv or a directory holding it)' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand store; and __fish_seen_subcommand_from purge" -l read-only -d 'Never write to the store (CI); also TUNESPEC_STORE_READ_ONLY=1'
complete -c tunespec -n "__fish_tunespec_using_subcommand store; and __fish_seen_subcommand_from purge" -s v -l verbose -d 'Print what tunespec does and how long each phase takes, to stderr (-vv: more detail; TUNESPEC_LOG sets the filter instead)'
complete -c tunespec -n "__fish_tunespec_using_subcommand store; and __fish_seen_subcommand_from purge" -s q -l quiet -d 'Print only problems and outputs: no progress bars, no summaries'
complete -c tunespec -n "__fish_tunespec_using_subcommand store; and __fish_seen_subcommand_from purge" -s h -l help -d 'Print help (see more with /'--help/')'
complete -c tunespec -n "__fish_tunespec_using_subcommand store; and __fish_seen_subcommand_from help" -f -a "push" -d 'Push a measured library/'s entries (bench --write, import-tuner) to the store'
complete -c tunespec -n "__fish_tunespec_using_subcommand store; and __fish_seen_subcommand_from help" -f -a "pull" -d 'Write the store/'s best entries for a target and device as a measured library (byte-identical for the same store content)'
complete -c tunespec -n "__fish_tunespec_using_subcommand store; and __fish_seen_subcommand_from help" -f -a "ls" -d 'List the best entry of every key in the store'
complete -c tunespec -n "__fish_tunespec_using_subcommand store; and __fish_seen_subcommand_from help" -f -a "purge" -d 'Remove the entries measured with an IREE version, on a device, before a date, or a whole namespace'
complete -c tunespec -n "__fish_tunespec_using_subcommand store; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c tunespec -n "__fish_tunespec_using_subcommand completions" -s o -l output -d 'Output file, or `-` for stdout (written atomically)' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand completions" -l color -d 'When to colour reports: auto (on a terminal, unless NO_COLOR or CLICOLOR=0; CLICOLOR_FORCE=1 forces it), always, never' -r -f -a "auto/t''
always/t''
never/t''"
complete -c tunespec -n "__fish_tunespec_using_subcommand completions" -l iree -d 'IREE/'s compiler library (libIREECompiler.so, a venv or a directory holding it)' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand completions" -s v -l verbose -d 'Print what tunespec does and how long each phase takes, to stderr (-vv: more detail; TUNESPEC_LOG sets the filter instead)'
complete -c tunespec -n "__fish_tunespec_using_subcommand completions" -s q -l quiet -d 'Print only problems and outputs: no progress bars, no summaries'
complete -c tunespec -n "__fish_tunespec_using_subcommand completions" -s h -l help -d 'Print help (see more with /'--help/')'
complete -c tunespec -n "__fish_tunespec_using_subcommand man" -s o -l output -d 'Output file (a directory with --all), or `-` for stdout (written atomically)' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand man" -l color -d 'When to colour reports: auto (on a terminal, unless NO_COLOR or CLICOLOR=0; CLICOLOR_FORCE=1 forces it), always, never' -r -f -a "auto/t''
always/t''
never/t''"
complete -c tunespec -n "__fish_tunespec_using_subcommand man" -l iree -d 'IREE/'s compiler library (libIREECompiler.so, a venv or a directory holding it)' -r -F
complete -c tunespec -n "__fish_tunespec_using_subcommand man" -l all -d 'Write every page (tunespec.1, tunespec-verify.1, ...) into the directory given by -o'
complete -c tunespec -n "__fish_tunespec_using_subcommand man" -s v -l verbose -d 'Print what tunespec does and how long each phase takes, to stderr (-vv: more detail; TUNESPEC_LOG sets the filter instead)'
complete -c tunespec -n "__fish_tunespec_using_subcommand man" -s q -l quiet -d 'Print only problems and outputs: no progress bars, no summaries'
complete -c tunespec -n "__fish_tunespec_using_subcommand man" -s h -l help -d 'Print help (see more with /'--help/')'
complete -c tunespec -n "__fish_tunespec_using_subcommand help; and not __fish_seen_subcommand_from verify link attach extract apply explain coverage resolve export targets show cache doctor import-iree import-tuner check bench time decide tune store completions man help" -f -a "verify" -d 'Verify tuning specs (files, directories, or the embedded registry)'
complete -c tunespec -n "__fish_tunespec_using_subcommand help; and not __fish_seen_subcommand_from verify link attach extract apply explain coverage resolve export targets show cache doctor import-iree import-tuner check bench time decide tune store completions man help" -f -a "link" -d 'Link default and user specs into one library (first match wins)'
complete -c tunespec -n "__fish_tunespec_using_subcommand help; and not __fish_seen_subcommand_from verify link attach extract apply explain coverage resolve export targets show cache doctor import-iree import-tuner check bench time decide tune store completions man help" -f -a "attach" -d 'Attach a linked library to a payload (iree_codegen.tuning_spec_mlirbc)'
complete -c tunespec -n "__fish_tunespec_using_subcommand help; and not __fish_seen_subcommand_from verify link attach extract apply explain coverage resolve export targets show cache doctor import-iree import-tuner check bench time decide tune store completions man help" -f -a "extract" -d 'Print the library attached to a payload'
complete -c tunespec -n "__fish_tunespec_using_subcommand help; and not __fish_seen_subcommand_from verify link attach extract apply explain coverage resolve export targets show cache doctor import-iree import-tuner check bench time decide tune store completions man help" -f -a "apply" -d 'Materialize configs: run @__kernel_config on each function of a payload'
complete -c tunespec -n "__fish_tunespec_using_subcommand help; and not __fish_seen_subcommand_from verify link attach extract apply explain coverage resolve export targets show cache doctor import-iree import-tuner check bench time decide tune store completions man help" -f -a "explain" -d 'Show what configured each candidate op of a payload, and from which spec line'
complete -c tunespec -n "__fish_tunespec_using_subcommand help; and not __fish_seen_subcommand_from verify link attach extract apply explain coverage resolve export targets show cache doctor import-iree import-tuner check bench time decide tune store completions man help" -f -a "coverage" -d 'List matchers that never fire across a corpus of payloads'
complete -c tunespec -n "__fish_tunespec_using_subcommand help; and not __fish_seen_subcommand_from verify link attach extract apply explain coverage resolve export targets show cache doctor import-iree import-tuner check bench time decide tune store completions man help" -f -a "resolve" -d 'Resolve a target: its fallback chain and the ordered specs, with where each comes from'
complete -c tunespec -n "__fish_tunespec_using_subcommand help; and not __fish_seen_subcommand_from verify link attach extract apply explain coverage resolve export targets show cache doctor import-iree import-tuner check bench time decide tune store completions man help" -f -a "export" -d 'Export the embedded specs for a compiler build (C header and source)'
complete -c tunespec -n "__fish_tunespec_using_subcommand help; and not __fish_seen_subcommand_from verify link attach extract apply explain coverage resolve export targets show cache doctor import-iree import-tuner check bench time decide tune store completions man help" -f -a "targets" -d 'List the embedded registry/'s targets and specs'
complete -c tunespec -n "__fish_tunespec_using_subcommand help; and not __fish_seen_subcommand_from verify link attach extract apply explain coverage resolve export targets show cache doctor import-iree import-tuner check bench time decide tune store completions man help" -f -a "show" -d 'Print a target/'s embedded specs as MLIR text'
complete -c tunespec -n "__fish_tunespec_using_subcommand help; and not __fish_seen_subcommand_from verify link attach extract apply explain coverage resolve export targets show cache doctor import-iree import-tuner check bench time decide tune store completions man help" -f -a "cache" -d 'The cache of linked libraries: stats, clean, path'
complete -c tunespec -n "__fish_tunespec_using_subcommand help; and not __fish_seen_subcommand_from verify link attach extract apply explain coverage resolve export targets show cache doctor import-iree import-tuner check bench time decide tune store completions man help" -f -a "doctor" -d 'What tunespec found on this machine (IREE/'s compiler, iree-opt, mlir-opt) and what works without it'
complete -c tunespec -n "__fish_tunespec_using_subcommand help; and not __fish_seen_subcommand_from verify link attach extract apply explain coverage resolve export targets show cache doctor import-iree import-tuner check bench time decide tune store completions man help" -f -a "import-iree" -d 'Write IREE/'s built-in default tuning specs (from an installed compiler) as a spec library'
complete -c tunespec -n "__fish_tunespec_using_subcommand help; and not __fish_seen_subcommand_from verify link attach extract apply explain coverage resolve export targets show cache doctor import-iree import-tuner check bench time decide tune store completions man help" -f -a "import-tuner" -d 'Import the SHARK tuner/'s measured winners (tuner run directories) as a spec library'
complete -c tunespec -n "__fish_tunespec_using_subcommand help; and not __fish_seen_subcommand_from verify link attach extract apply explain coverage resolve export targets show cache doctor import-iree import-tuner check bench time decide tune store completions man help" -f -a "check" -d 'Re-check every matcher of specs and spec libraries against the installed IREE (--fix migrates old syntax)'
complete -c tunespec -n "__fish_tunespec_using_subcommand help; and not __fish_seen_subcommand_from verify link attach extract apply explain coverage resolve export targets show cache doctor import-iree import-tuner check bench time decide tune store completions man help" -f -a "bench" -d 'Time the library/'s configs against IREE/'s own on a device (IREE/'s runtime), and write the winners as measured entries'
complete -c tunespec -n "__fish_tunespec_using_subcommand help; and not __fish_seen_subcommand_from verify link attach extract apply explain coverage resolve export targets show cache doctor import-iree import-tuner check bench time decide tune store completions man help" -f -a "time" -d 'Time a bench plan (`bench --plan`) on a device with IREE/'s runtime alone (no compiler): the plan/'s results, resumable, in shards'
complete -c tunespec -n "__fish_tunespec_using_subcommand help; and not __fish_seen_subcommand_from verify link attach extract apply explain coverage resolve export targets show cache doctor import-iree import-tuner check bench time decide tune store completions man help" -f -a "decide" -d 'Decide a timed bench plan: its verdicts and, with --write, its measured entries'
complete -c tunespec -n "__fish_tunespec_using_subcommand help; and not __fish_seen_subcommand_from verify link attach extract apply explain coverage resolve export targets show cache doctor import-iree import-tuner check bench time decide tune store completions man help" -f -a "tune" -d 'Search configs faster than IREE/'s own for a model/'s dispatches on a device, and write the winners as a measured library'
complete -c tunespec -n "__fish_tunespec_using_subcommand help; and not __fish_seen_subcommand_from verify link attach extract apply explain coverage resolve export targets show cache doctor import-iree import-tuner check bench time decide tune store completions man help" -f -a "store" -d 'The shared store of measured entries (Redis, a directory): push, pull, ls, purge'
complete -c tunespec -n "__fish_tunespec_using_subcommand help; and not __fish_seen_subcommand_from verify link attach extract apply explain coverage resolve export targets show cache doctor import-iree import-tuner check bench time decide tune store completions man help" -f -a "completions" -d 'Print a shell completion script (bash, zsh, fish, powershell, elvish)'
complete -c tunespec -n "__fish_tunespec_using_subcommand help; and not __fish_seen_subcommand_from verify link attach extract apply explain coverage resolve export targets show cache doctor import-iree import-tuner check bench time decide tune store completions man help" -f -a "man" -d 'Print the manual page (roff), of tunespec or of one command'
complete -c tunespec -n "__fish_tunespec_using_subcommand help; and not __fish_seen_subcommand_from verify link attach extract apply explain coverage resolve export targets show cache doctor import-iree import-tuner check bench time decide tune store completions man help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c tunespec -n "__fish_tunespec_using_subcommand help; and __fish_seen_subcommand_from cache" -f -a "stats" -d 'Hits, misses, corrupt entries (since the counters were last cleared), entries and bytes'
complete -c tunespec -n "__fish_tunespec_using_subcommand help; and __fish_seen_subcommand_from cache" -f -a "clean" -d 'Remove every entry (and temporary files left by crashed processes)'
complete -c tunespec -n "__fish_tunespec_using_subcommand help; and __fish_seen_subcommand_from cache" -f -a "path" -d 'Print the cache directory'
complete -c tunespec -n "__fish_tunespec_using_subcommand help; and __fish_seen_subcommand_from store" -f -a "push" -d 'Push a measured library/'s entries (bench --write, import-tuner) to the store'
complete -c tunespec -n "__fish_tunespec_using_subcommand help; and __fish_seen_subcommand_from store" -f -a "pull" -d 'Write the store/'s best entries for a target and device as a measured library (byte-identical for the same store content)'
complete -c tunespec -n "__fish_tunespec_using_subcommand help; and __fish_seen_subcommand_from store" -f -a "ls" -d 'List the best entry of every key in the store'
complete -c tunespec -n "__fish_tunespec_using_subcommand help; and __fish_seen_subcommand_from store" -f -a "purge" -d 'Remove the entries measured with an IREE version, on a device, before a date, or a whole namespace'
