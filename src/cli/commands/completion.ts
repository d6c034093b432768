// `tessera completion`: a shell completion script for bash (zsh through bashcompinit), made from
// the program's own commands and options, so it never falls behind them.

import type { Command } from 'commander';
import type { CliIo } from '../io.js';

function words(commands: readonly Command[]): string {
  return commands.map((c) => c.name()).join(' ');
}

function optionsOf(command: Command): string {
  return [...command.options.map((o) => o.long).filter((l): l is string => l !== undefined), '--help'].join(' ');
}

/** The bash script: commands at the first word, subcommands at the second, then options. */
export function bashCompletion(program: Command): string {
  const top = program.commands.filter((c) => c.name() !== 'help');
  const second = top.map((c) => `    ${c.name()}) COMPREPLY=( $(compgen -W "${c.commands.length > 0 ? words(c.commands) : optionsOf(c)}" -- "$cur") ) ;;`);
  const rest = top.flatMap((c) =>
    c.commands.length > 0 ? c.commands.map((s) => `    "${c.name()} ${s.name()}") COMPREPLY=( $(compgen -W "${optionsOf(s)}" -- "$cur") ) ;;`) : [`    "${c.name()} "*) COMPREPLY=( $(compgen -W "${optionsOf(c)}" -- "$cur") ) ;;`],
  );
  return `# tessera completion for bash; in zsh run \`autoload -U bashcompinit && bashcompinit\` first.
# Install: tessera completion >> ~/.bashrc   (or: source <(tessera completion))
_tessera() {
  local cur="\${COMP_WORDS[COMP_CWORD]}"
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=( $(compgen -W "${words(top)} --help --version" -- "$cur") )
    return
  fi
  if [ "$COMP_CWORD" -eq 2 ]; then
    case "\${COMP_WORDS[1]}" in
${second.join('\n')}
    esac
    return
  fi
  case "\${COMP_WORDS[1]} \${COMP_WORDS[2]}" in
${rest.join('\n')}
  esac
}
complete -o default -F _tessera tessera
`;
}

export function registerCompletionCommand(program: Command, io: CliIo): void {
  program
    .command('completion')
    .description('print a shell completion script (bash; zsh with bashcompinit)')
    .addHelpText('after', '\nInstall:\n  tessera completion >> ~/.bashrc')
    .action(() => io.stdout(bashCompletion(program)));
}
