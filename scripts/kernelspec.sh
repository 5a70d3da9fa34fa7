#!/bin/sh
# kernelspec.sh: write and register speck's Jupyter kernelspec.
#   kernelspec.sh write DIR PYTHON KERNEL_PY LIBSPECK   DIR/kernel.json for a kernel
#       run as 'PYTHON KERNEL_PY -f <connection file>' over LIBSPECK
#   kernelspec.sh register DIR     make 'jupyter kernelspec list' show DIR as
#       'speck' (nothing to do when Jupyter already looks there); without
#       Jupyter a message says how to register it later, and the exit
#       status is 0 (make install goes on)
set -eu
json_str() { printf '"%s"' "$(printf '%s' "$1" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g')"; }
case "${1:-}" in
write)
  dir=$2 py=$3 kpy=$4 lib=$5
  mkdir -p "$dir"
  cat > "$dir/kernel.json" <<JSON
{
  "argv": [$(json_str "$py"), "-Xfrozen_modules=off", $(json_str "$kpy"), "-f", "{connection_file}"],
  "display_name": "speck",
  "language": "lua",
  "interrupt_mode": "signal",
  "env": {"SPECK_LIBSPECK": $(json_str "$lib"), "PYDEVD_DISABLE_FILE_VALIDATION": "1"},
  "metadata": {"debugger": false}
}
JSON
  ;;
register)
  dir=$2
  if ! command -v jupyter >/dev/null 2>&1 || ! jupyter kernelspec list >/dev/null 2>&1; then
    echo "speck: Jupyter is not installed (Debian: jupyter-client python3-ipykernel), so the"
    echo "  speck kernel is not registered; its kernelspec is in $dir --"
    echo "  'jupyter kernelspec install --user --name speck $dir' registers it later."
    exit 0
  fi
  if jupyter kernelspec list 2>/dev/null | grep -q "^ *speck  *$dir\$"; then
    echo "speck: Jupyter kernel 'speck' found in $dir"
    exit 0
  fi
  if jupyter kernelspec install --user --replace --name speck "$dir" >/dev/null 2>&1; then
    echo "speck: Jupyter kernel 'speck' registered ($(jupyter kernelspec list 2>/dev/null | grep '^ *speck '))"
  else
    echo "speck: 'jupyter kernelspec install --user --name speck $dir' failed; the kernel is not registered"
  fi
  ;;
*)
  echo "usage: kernelspec.sh write DIR PYTHON KERNEL_PY LIBSPECK | register DIR" >&2
  exit 2
  ;;
esac
