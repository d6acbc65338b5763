// Saving a file the API answered (a zip, a CSV) through the browser's download.

/** Hands a Blob to the browser as a file download. */
export function saveBlob(blob: Blob, fileName: string) {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.style.display = 'none';
  document.body.append(link);
  link.click();
  link.remove();
  // Some browsers start reading the URL after click() returns.
  window.setTimeout(() => URL.revokeObjectURL(url), 0);
}
