;;; conn-issue31.el --- Issue 31 in Emacs: an edit after a rewind lands on its line  -*- lexical-binding: t; -*-

;; conn.el loads this file and calls `test-conn-issue31'.  A task adds six
;; lines near the top of a file; rewinding its session to step 0 puts the
;; file back six lines shorter.  The next task edits a line below the
;; rewound ones: it must be planned on the file's text, not on agentls's
;; pre-rewind copy, which put the edit six lines too low, on another line
;; of the real file.  Once with the file not open in Emacs (agentls.el
;; visits it for each edit, saves and closes it: agentls's own copy is what
;; went stale in the issue), once with the file open in a buffer.

;;; Code:

(defun test-conn-issue31-one (prefix file open)
  "Add, rewind, edit below in FILE (tasks \"PREFIX add\", \"PREFIX below\");
OPEN: the file is open in a buffer throughout."
  (let* ((path (expand-file-name file test-ws))
         (orig (mapconcat (lambda (i) (format "line %02d\n" i)) (number-sequence 1 20) ""))
         (where (if open "an open buffer" "a file not open"))
         (buf nil) r1 r2 rew)
    (with-temp-file path (insert orig))
    (when open
      (setq buf (find-file-noselect path))
      (with-current-buffer buf (unless agentls-managed-mode (agentls-managed-mode 1))))
    (cl-flet ((text () (if open (with-current-buffer buf (buffer-string)) (test-file file)))
              (run (task) (with-current-buffer (or buf (find-file-noselect (expand-file-name "hello.txt" test-ws)))
                            (agentls-run task))))
      (setq r1 (run (concat prefix " add six lines under line 02")))
      (test-wait-end r1 20)
      (let ((added (text)))
        (test-check (format "i31 the first task adds six lines (%s)" where)
                    (and (equal (plist-get (test-task r1) :status) "ok")
                         (string-search "line 02\nadded 1\n" added) (string-search "added 6\nline 03\n" added))
                    added))
      (setq rew (agentls-rewind r1 0))
      (test-check (format "i31 rewinding to step 0 puts it back (%s)" where)
                  (and (eq (plist-get rew :applied) t) (test-wait 5 (lambda () (equal (text) orig))))
                  (format "%S\n%s" rew (text)))
      (setq r2 (run (concat prefix " below: shout line 08")))
      (test-wait-end r2 20)
      (let ((want (replace-regexp-in-string "line 08" "LINE 08" orig t t))
            (told (cl-some (lambda (req)
                             (cl-some (lambda (m) (and (string-suffix-p "2" (or (plist-get m :toolCallId) ""))
                                                       (string-search "rw" (plist-get m :toolCallId))
                                                       (stringp (plist-get m :content))
                                                       (string-search file (plist-get m :content))
                                                       (string-prefix-p "edited " (plist-get m :content))
                                                       (plist-get m :content)))
                                      (append (plist-get (plist-get req :body) :messages) nil)))
                           (test-requests))))
        (test-check (format "i31 after a rewind, an edit below the rewound lines lands on its line (%s)" where)
                    (and (equal (plist-get (test-task r2) :status) "ok")
                         (test-wait 5 (lambda () (equal (text) want)))
                         (stringp told) (string-search "line 8" told))
                    (format "%S told %S\n%s" (plist-get (test-task r2) :result) told (text)))))
    (when buf
      (with-current-buffer buf (set-buffer-modified-p nil))
      (kill-buffer buf))))

(defun test-conn-issue31 ()
  (test-conn-issue31-one "Rw31c" "rw31c.txt" nil)
  (test-conn-issue31-one "Rw31" "rw31.txt" t))

;;; conn-issue31.el ends here
