import { secondaryButton } from './styles';

interface DownloadButtonProps {
  busy: boolean;
  onClick: () => void;
  /** "Download" in tables and cards, "Download App" on detail pages. */
  label?: string;
  className?: string;
}

export function DownloadButton({ busy, onClick, label = 'Download', className = secondaryButton }: DownloadButtonProps) {
  return (
    <button type="button" className={className} disabled={busy} aria-busy={busy} onClick={onClick}>
      {busy ? 'Downloading...' : label}
    </button>
  );
}
